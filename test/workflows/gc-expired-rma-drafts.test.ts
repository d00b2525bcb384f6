// GcExpiredRmaDraftsWorkflow on the real Temporal server and PostgreSQL: a return drafted and never
// submitted expires once its draft lifetime is over, freeing its units; a rerun changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fulfilOrder, markOrderPaid } from '@shop/domain/orders';
import { createReturnDraft, submitReturn, type ReturnActor } from '@shop/domain/returns';
import { TASK_QUEUE, WORKFLOW_TYPES } from '@shop/domain/workflows';
import { openWorkflowShop, type WorkflowShop } from '../support/workflows.ts';

let shop: WorkflowShop;
let worker: { url: string };

beforeAll(async () => {
  shop = await openWorkflowShop('rma-drafts');
  worker = await shop.startWorker();
}, 180_000);

afterAll(async () => {
  await shop?.close();
});

const STAFF: ReturnActor = { kind: 'staff', staffUserId: 1n };
const prisma = () => shop.commerce.platform.database.prisma;
const sweep = (workflowId: string, asOf: Date) =>
  shop.client.workflow.execute(WORKFLOW_TYPES.gcExpiredRmaDrafts, { taskQueue: TASK_QUEUE, workflowId, args: [asOf.toISOString()] });

describe('GcExpiredRmaDraftsWorkflow', () => {
  it('expires a return draft past its lifetime once, and leaves a submitted return and a draft not yet due', async () => {
    await shop.setSetting('workflows', { rmaDraftLifetimeHours: 1 });
    const { order } = await shop.placeOrder({ sku: 'rma-tee', quantity: 3, holdMs: 10 * 60_000 });
    await shop.transaction(async (tx) => {
      await markOrderPaid(tx, shop.deps, order.id);
      await fulfilOrder(tx, shop.deps, order.id);
    });
    const line = { orderLineId: order.lines[0]?.id ?? 0n, quantity: 1 };
    const draftAt = (at: Date) =>
      shop.transaction((tx) =>
        createReturnDraft(tx, { ...shop.deps, now: () => at }, { orderId: order.id, lines: [line], reason: 'too big', actor: STAFF }),
      );
    const now = Date.now();
    const stale = await draftAt(new Date(now));
    const submitted = await draftAt(new Date(now));
    await shop.transaction((tx) => submitReturn(tx, shop.deps, submitted.id, STAFF));
    const fresh = await draftAt(new Date(now + 60 * 60_000));
    const asOf = stale.draftExpiresAt;
    expect(asOf).toEqual(new Date(now + 60 * 60_000));

    await expect(sweep('gc-expired-rma-drafts-early', new Date(now))).resolves.toEqual({ passes: 1, processed: 0 });
    await expect(sweep('gc-expired-rma-drafts-first', asOf)).resolves.toEqual({ passes: 1, processed: 1 });
    await expect(sweep('gc-expired-rma-drafts-second', asOf)).resolves.toEqual({ passes: 1, processed: 0 });

    const returns = await prisma().returnAuthorization.findMany({ where: { orderId: order.id }, orderBy: { id: 'asc' } });
    expect(returns.map((rma) => [rma.id, rma.status])).toEqual([
      [stale.id, 'EXPIRED'],
      [submitted.id, 'REQUESTED'],
      [fresh.id, 'DRAFT'],
    ]);
    const { rows } = await shop.commerce.platform.database.pool.query<{ payload: Record<string, unknown> }>(
      "SELECT payload FROM outbox_events WHERE name = 'shop.returns.status_changed.v1' AND payload->>'to' = 'EXPIRED'",
    );
    expect(rows.map((row) => row.payload)).toMatchObject([
      { return_id: stale.id.toString(), order_id: order.id.toString(), from: 'DRAFT' },
    ]);
    const metrics = await (await fetch(`${worker.url}/metrics`)).text();
    expect(metrics).toMatch(/workflow_sweep_rows_total\{sweep="GcExpiredRmaDraftsWorkflow",what="rma_drafts"[^}]*\} 1\n/);
    await shop.saveHistory('gc-expired-rma-drafts-first', WORKFLOW_TYPES.gcExpiredRmaDrafts, 'expired');
  });
});
