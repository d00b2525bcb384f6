import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveBusinessCustomer, registerCustomer } from '@shop/domain/accounts';
import { approveOrder } from '@shop/domain/orders';
import { WORKFLOW_TYPES, workflowIds } from '@shop/domain/workflows';
import { waitFor } from '../support/wait.ts';
import { APPROVAL_WINDOW_MS, openWorkflowShop, type WorkflowShop } from '../support/workflows.ts';
import { cancelOrder } from '@shop/domain/flows';

let shop: WorkflowShop;
let registered = 0;

beforeAll(async () => {
  shop = await openWorkflowShop('approvals');
  // Reminders after 3.6 s and expiry after 7.2 s instead of days.
  await shop.setSetting('workflows', {
    customerApprovalReminderHours: 0.001,
    customerApprovalExpiryHours: 0.002,
    orderApprovalReminderHours: 0.001,
  });
  await shop.startWorker();
}, 180_000);

afterAll(async () => {
  await shop?.close();
});

function registerBusiness() {
  registered += 1;
  const email = `buyer-${registered}@acme.example`;
  return shop.transaction((tx) =>
    registerCustomer(tx, shop.deps, { channelId: shop.catalog.channelId, email, password: 'correct horse battery', isBusiness: true }),
  );
}

async function eventsAbout(name: string, field: string, id: bigint): Promise<Record<string, unknown>[]> {
  const { rows } = await shop.commerce.platform.database.pool.query<{ payload: Record<string, unknown> }>(
    'SELECT payload FROM outbox_events WHERE name = $1 AND payload->>$2 = $3 ORDER BY id',
    [name, field, id.toString()],
  );
  return rows.map((row) => row.payload);
}

describe('CustomerApprovalWorkflow', () => {
  it('reminds on time, then rejects an account nobody decided on', async () => {
    const customer = await registerBusiness();
    const workflowId = workflowIds.customerApproval(customer.id.toString());
    await shop.started(workflowId);
    await expect(shop.client.workflow.getHandle(workflowId).result()).resolves.toEqual({ approvalStatus: 'REJECTED' });
    await shop.saveHistory(workflowId, WORKFLOW_TYPES.customerApproval, 'expired');
    const reminders = (await eventsAbout('shop.approvals.reminder_due.v1', 'subject_id', customer.id)).filter(
      (reminder) => reminder.approval === 'customer_registration',
    );
    expect(reminders).toMatchObject([{ channel_id: shop.catalog.channelId.toString(), requested_at: customer.createdAt.toISOString() }]);
    // The reminder came before the expiry, which is 7.2 s after registration.
    expect(Date.parse(String(reminders[0]?.expires_at)) - customer.createdAt.getTime()).toBe(7_200);
    expect(Date.parse(String(reminders[0]?.occurred_at))).toBeLessThan(Date.parse(String(reminders[0]?.expires_at)));
    expect((await shop.commerce.platform.database.prisma.customer.findUniqueOrThrow({ where: { id: customer.id } })).approvalStatus).toBe(
      'REJECTED',
    );
    const changes = await eventsAbout('customer.approval_changed', 'customer_id', customer.id);
    expect(changes.map((change) => change.approval_status)).toEqual(['PENDING', 'REJECTED']);
  });

  it('ends when staff approve, without a reminder', async () => {
    const customer = await registerBusiness();
    const workflowId = workflowIds.customerApproval(customer.id.toString());
    await shop.started(workflowId);
    await shop.transaction((tx) => approveBusinessCustomer(tx, shop.deps, customer.id));
    await expect(shop.client.workflow.getHandle(workflowId).result()).resolves.toEqual({ approvalStatus: 'APPROVED' });
    await shop.saveHistory(workflowId, WORKFLOW_TYPES.customerApproval, 'approved');
    const reminders = await eventsAbout('shop.approvals.reminder_due.v1', 'subject_id', customer.id);
    expect(reminders.filter((reminder) => reminder.approval === 'customer_registration')).toEqual([]);
  });
});

describe('OrderApprovalWorkflow', () => {
  it('reminds, then cancels a business order nobody approved before its stock hold ran out', async () => {
    const customer = await registerBusiness();
    const { order } = await shop.placeOrder({ sku: 'unapproved', customerId: customer.id, holdMs: 6_000, windowMs: APPROVAL_WINDOW_MS });
    expect(order.status).toBe('AWAITING_APPROVAL');
    const approval = workflowIds.orderApproval(order.id.toString());
    await shop.started(approval);
    await expect(shop.client.workflow.getHandle(approval).result()).resolves.toEqual({ status: 'CANCELLED' });
    await shop.saveHistory(approval, WORKFLOW_TYPES.orderApproval, 'expired');
    await expect(shop.client.workflow.getHandle(workflowIds.orderLifecycle(order.id.toString())).result()).resolves.toEqual({
      status: 'CANCELLED',
    });
    // Customer ids and order ids are different sequences: the same number can name both.
    const reminders = (await eventsAbout('shop.approvals.reminder_due.v1', 'subject_id', order.id)).filter(
      (reminder) => reminder.approval === 'order',
    );
    expect(reminders).toMatchObject([{ channel_id: shop.catalog.channelId.toString(), requested_at: order.placedAt.toISOString() }]);
    expect(await shop.commerce.platform.database.prisma.order.findUniqueOrThrow({ where: { id: order.id } })).toMatchObject({
      status: 'CANCELLED',
      cancelReason: 'the stock hold expired before the order was approved',
    });
  });

  it('ends when staff approve the order; the lifecycle goes on to wait for payment', async () => {
    const customer = await registerBusiness();
    const { order } = await shop.placeOrder({ sku: 'approved', customerId: customer.id, holdMs: 60_000, windowMs: APPROVAL_WINDOW_MS });
    const approval = workflowIds.orderApproval(order.id.toString());
    await shop.started(approval);
    await shop.transaction((tx) => approveOrder(tx, shop.deps, order.id));
    await expect(shop.client.workflow.getHandle(approval).result()).resolves.toEqual({ status: 'PENDING_PAYMENT' });
    await shop.saveHistory(approval, WORKFLOW_TYPES.orderApproval, 'approved');
    const lifecycle = shop.client.workflow.getHandle(workflowIds.orderLifecycle(order.id.toString()));
    await waitFor(
      async () => (await lifecycle.query<{ status: string }>('state')).status === 'PENDING_PAYMENT',
      30_000,
      'the lifecycle to see the approval',
    );
    await shop.transaction((tx) => cancelOrder(tx, shop.deps, order.id, 'test over'));
    await expect(lifecycle.result()).resolves.toEqual({ status: 'CANCELLED' });
    await shop.saveHistory(lifecycle.workflowId, WORKFLOW_TYPES.orderLifecycle, 'approved-then-cancelled');
  });
});
