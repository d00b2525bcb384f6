// A return's receipt on the real path: its refund request starts RefundExecutionWorkflow through the
// outbox, the worker refunds the store credit the order was paid with, and the return ends REFUNDED.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCartLine, createCart } from '@shop/domain/carts';
import { placeOrder } from '@shop/domain/flows';
import { fulfilOrder } from '@shop/domain/orders';
import { createReturnDraft, receiveReturn, submitReturn, type ReturnActor } from '@shop/domain/returns';
import { customerStoreCreditAccount, issueStoreCredit, storeCreditBalance } from '@shop/domain/store-credit';
import { workflowIds } from '@shop/domain/workflows';
import { ADDRESS } from '../../services/domain/test/support/commerce.ts';
import { openWorkflowShop, type WorkflowShop } from '../support/workflows.ts';

let shop: WorkflowShop;

beforeAll(async () => {
  shop = await openWorkflowShop('return-refund');
  await shop.startWorker();
}, 180_000);

afterAll(async () => {
  await shop?.close();
});

const STAFF: ReturnActor = { kind: 'staff', staffUserId: 1n };
const prisma = () => shop.commerce.platform.database.prisma;

describe('the refund of a return', () => {
  it('runs as a RefundExecutionWorkflow started by the receipt, and leaves the return REFUNDED', async () => {
    const customer = await prisma().customer.create({
      data: { channelId: shop.catalog.channelId, email: 'returner@example.com', passwordHash: 'scrypt$unused' },
    });
    const productId = await shop.catalog.product('rma-mug', '15.00', 5);
    const shopper = { customerId: customer.id };
    const order = await shop.transaction(async (tx) => {
      await issueStoreCredit(tx, shop.deps, {
        customerId: customer.id,
        currency: 'EUR',
        amount: '50.00',
        note: 'to spend',
        idempotencyKey: 'issue:returner',
      });
      const cart = await createCart(tx, shop.deps, { channelId: shop.catalog.channelId, shopper });
      await addCartLine(tx, shop.deps, { cartId: cart.id, shopper, productId, quantity: 2 });
      const placed = await placeOrder(tx, shop.deps, {
        cartId: cart.id,
        shopper,
        email: 'returner@example.com',
        billingAddress: ADDRESS,
        shippingAddress: ADDRESS,
        useStoreCredit: true,
        idempotencyKey: 'checkout:returner',
      });
      return fulfilOrder(tx, shop.deps, placed.id);
    });
    const { id: accountId } = await shop.transaction((tx) => customerStoreCreditAccount(tx, customer.id, 'EUR'));
    const orderLineId = order.lines[0]?.id ?? 0n;
    const received = await shop.transaction(async (tx) => {
      const rma = await createReturnDraft(tx, shop.deps, {
        orderId: order.id,
        lines: [{ orderLineId, quantity: 2 }],
        reason: 'chipped',
        actor: STAFF,
      });
      await submitReturn(tx, shop.deps, rma.id, STAFF);
      return receiveReturn(tx, shop.deps, {
        returnId: rma.id,
        lines: [{ orderLineId, quantity: 2 }],
        idempotencyKey: 'receipt:returner',
        staffUserId: 1n,
      });
    });
    expect(received.rma.status).toBe('RECEIVED');
    expect(received.refund).toMatchObject({ amount: '30.00', source: 'RMA', rmaId: received.rma.id.toString() });

    const workflow = await shop.started(workflowIds.refundExecution(received.refund?.id ?? ''));
    await expect(workflow.result()).resolves.toEqual({ status: 'SUCCEEDED' });
    // The workflow's run over the request settles the return before it answers.
    expect(await prisma().returnAuthorization.findUniqueOrThrow({ where: { id: received.rma.id } })).toMatchObject({
      status: 'REFUNDED',
      refundedAt: expect.any(Date),
    });
    expect((await storeCreditBalance(prisma(), accountId)).toFixed(2)).toBe('50.00');
    const { rows } = await shop.commerce.platform.database.pool.query<{ payload: Record<string, unknown> }>(
      "SELECT payload FROM outbox_events WHERE name = 'shop.returns.status_changed.v1' AND payload->>'return_id' = $1 ORDER BY id",
      [received.rma.id.toString()],
    );
    expect(rows.map((row) => row.payload.to)).toEqual(['DRAFT', 'REQUESTED', 'RECEIVED', 'REFUNDED']);
  });
});
