-- AddForeignKey
ALTER TABLE "refund_requests" ADD CONSTRAINT "refund_requests_rma_id_fkey" FOREIGN KEY ("rma_id") REFERENCES "return_authorizations"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
