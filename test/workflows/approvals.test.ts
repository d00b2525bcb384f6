import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveBusinessCustomer, registerCustomer } from '@shop/domain/accounts';
import { approveOrder } from '@shop/domain/orders';
import { WORKFLOW_TYPES, workflowIds } from '@shop/domain/workflows';
import { workflowSettings } from '@shop/domain/settings';
import { expectFiredAt, timeSkippingShopPerGroup } from '../support/time-skipping.ts';
import { waitFor } from '../support/wait.ts';
import { APPROVAL_WINDOW_MS, openWorkflowShop, runTimers, type WorkflowShop } from '../support/workflows.ts';
import { cancelOrder } from '@shop/domain/flows';

let shop: WorkflowShop;
let registered = 0;

beforeAll(async () => {
  shop = await openWorkflowShop('approvals');
  await shop.startWorker();
}, 180_000);

afterAll(async () => {
  await shop?.close();
});

function registerBusiness(on: WorkflowShop = shop) {
  registered += 1;
  const email = `buyer-${registered}@acme.example`;
  return on.transaction((tx) =>
    registerCustomer(tx, on.deps, { channelId: on.catalog.channelId, email, password: 'correct horse battery', isBusiness: true }),
  );
}

async function eventsAbout(name: string, field: string, id: bigint, on: WorkflowShop = shop): Promise<Record<string, unknown>[]> {
  const { rows } = await on.commerce.platform.database.pool.query<{ payload: Record<string, unknown> }>(
    'SELECT payload FROM outbox_events WHERE name = $1 AND payload->>$2 = $3 ORDER BY id',
    [name, field, id.toString()],
  );
  return rows.map((row) => row.payload);
}

const HOUR_MS = 60 * 60_000;

describe('CustomerApprovalWorkflow', () => {
  describe('on the time-skipping test server', () => {
    const timed = timeSkippingShopPerGroup('approvals-customer-timers');

    it('reminds after the reminder hours, then rejects an account nobody decided on after the expiry hours', async () => {
      const { shop: timedShop } = timed();
      const customer = await registerBusiness(timedShop);
      const workflowId = workflowIds.customerApproval(customer.id.toString());
      const handle = await timedShop.started(workflowId);
      await expect(handle.result()).resolves.toEqual({ approvalStatus: 'REJECTED' });
      await timedShop.saveHistory(workflowId, WORKFLOW_TYPES.customerApproval, 'expired');
      const { customerApprovalReminderHours, customerApprovalExpiryHours } = await timedShop.transaction((tx) => workflowSettings(tx));
      // The reminder's timer fired, then the expiry's, each on time on the server's clock.
      const { timers, firedAt } = await runTimers(handle);
      expect(timers).toEqual(['fired', 'fired']);
      expectFiredAt(firedAt[0], customer.createdAt.getTime() + customerApprovalReminderHours * HOUR_MS);
      expectFiredAt(firedAt[1], customer.createdAt.getTime() + customerApprovalExpiryHours * HOUR_MS);
      const reminders = (await eventsAbout('shop.approvals.reminder_due.v1', 'subject_id', customer.id, timedShop)).filter(
        (reminder) => reminder.approval === 'customer_registration',
      );
      expect(reminders).toMatchObject([
        { channel_id: timedShop.catalog.channelId.toString(), requested_at: customer.createdAt.toISOString() },
      ]);
      expect(Date.parse(String(reminders[0]?.expires_at)) - customer.createdAt.getTime()).toBe(customerApprovalExpiryHours * HOUR_MS);
      expect(
        (await timedShop.commerce.platform.database.prisma.customer.findUniqueOrThrow({ where: { id: customer.id } })).approvalStatus,
      ).toBe('REJECTED');
      const changes = await eventsAbout('customer.approval_changed', 'customer_id', customer.id, timedShop);
      expect(changes.map((change) => change.approval_status)).toEqual(['PENDING', 'REJECTED']);
      // The reminder came between the registration and the rejection.
      const { rows } = await timedShop.commerce.platform.database.pool.query<{ name: string }>(
        `SELECT name FROM outbox_events
          WHERE (name = 'shop.approvals.reminder_due.v1' AND payload->>'approval' = 'customer_registration' AND payload->>'subject_id' = $1)
             OR (name = 'customer.approval_changed' AND payload->>'customer_id' = $1)
          ORDER BY id`,
        [customer.id.toString()],
      );
      expect(rows.map((row) => row.name)).toEqual([
        'customer.approval_changed',
        'shop.approvals.reminder_due.v1',
        'customer.approval_changed',
      ]);
    });
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
  describe('on the time-skipping test server', () => {
    const timed = timeSkippingShopPerGroup('approvals-order-timers');

    it('reminds after the reminder hours, then cancels a business order nobody approved before its stock hold ran out', async () => {
      const { shop: timedShop } = timed();
      const customer = await registerBusiness(timedShop);
      const { order } = await timedShop.placeOrder({
        sku: 'unapproved',
        customerId: customer.id,
        holdMs: APPROVAL_WINDOW_MS,
        windowMs: APPROVAL_WINDOW_MS,
      });
      expect(order.status).toBe('AWAITING_APPROVAL');
      const approval = await timedShop.started(workflowIds.orderApproval(order.id.toString()));
      await expect(approval.result()).resolves.toEqual({ status: 'CANCELLED' });
      await timedShop.saveHistory(approval.workflowId, WORKFLOW_TYPES.orderApproval, 'expired');
      await expect(timedShop.client.workflow.getHandle(workflowIds.orderLifecycle(order.id.toString())).result()).resolves.toEqual({
        status: 'CANCELLED',
      });
      // The reminder's timer fired, then the hold's at its expiry, each on time on the server's clock.
      const { orderApprovalReminderHours } = await timedShop.transaction((tx) => workflowSettings(tx));
      const { timers, firedAt } = await runTimers(approval);
      expect(timers).toEqual(['fired', 'fired']);
      expectFiredAt(firedAt[0], order.placedAt.getTime() + orderApprovalReminderHours * HOUR_MS);
      expectFiredAt(firedAt[1], order.placedAt.getTime() + APPROVAL_WINDOW_MS);
      // Customer ids and order ids are different sequences: the same number can name both.
      const reminders = (await eventsAbout('shop.approvals.reminder_due.v1', 'subject_id', order.id, timedShop)).filter(
        (reminder) => reminder.approval === 'order',
      );
      expect(reminders).toMatchObject([{ channel_id: timedShop.catalog.channelId.toString(), requested_at: order.placedAt.toISOString() }]);
      expect(await timedShop.commerce.platform.database.prisma.order.findUniqueOrThrow({ where: { id: order.id } })).toMatchObject({
        status: 'CANCELLED',
        cancelReason: 'the stock hold expired before the order was approved',
      });
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
