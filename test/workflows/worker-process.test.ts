import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERIODIC_WORKFLOWS, TASK_QUEUE, WORKFLOW_TYPES, workflowIds } from '@shop/domain/workflows';
import { spawnService } from '../support/service-process.ts';
import { eventually, waitFor } from '../support/wait.ts';
import { openWorkflowShop, runTimers, WORKER_MAIN, type RunningWorker, type WorkflowShop } from '../support/workflows.ts';

let shop: WorkflowShop;
const workers: RunningWorker[] = [];

beforeAll(async () => {
  shop = await openWorkflowShop('workers');
}, 180_000);

afterAll(async () => {
  await shop?.close();
});

const stockOf = (productId: bigint) =>
  shop.commerce.platform.database.prisma.stockLevel.findUniqueOrThrow({
    where: { productId_locationId: { productId, locationId: shop.catalog.locationId } },
  });

async function scheduleIds(): Promise<string[]> {
  const ids: string[] = [];
  for await (const schedule of shop.client.schedule.list()) ids.push(schedule.scheduleId);
  return ids.sort();
}

/** The identities polling the shared task queue for workflow tasks. */
async function pollers(): Promise<string[]> {
  const { pollers: found } = await shop.client.workflowService.describeTaskQueue({
    namespace: shop.namespace,
    taskQueue: { name: TASK_QUEUE },
    taskQueueType: 1,
  });
  return (found ?? []).map((poller) => poller.identity ?? '');
}

/** The id of the newest finished run of a scheduled workflow type. */
async function lastRunOf(workflowType: string): Promise<string> {
  let found: string | undefined;
  await waitFor(
    async () => {
      for await (const execution of shop.client.workflow.list({
        query: `WorkflowType = '${workflowType}' AND ExecutionStatus = 'Completed'`,
      })) {
        found = execution.workflowId;
        return true;
      }
      return false;
    },
    30_000,
    `a finished ${workflowType}`,
  );
  return found ?? '';
}

describe('the worker process', () => {
  it('starts two workers on one task queue, with each schedule created once', async () => {
    const [first, second] = await Promise.all([shop.startWorker(), shop.startWorker()]);
    workers.push(first, second);
    // The in-tree order-notes extension declares one too.
    expect(await scheduleIds()).toEqual([...PERIODIC_WORKFLOWS.map((periodic) => periodic.scheduleId), 'order-notes.digest'].sort());
    const pids = [first.process.child.pid, second.process.child.pid].map(String);
    await waitFor(
      async () => {
        const identities = await pollers();
        return pids.every((pid) => identities.some((identity) => identity.startsWith(`${pid}@`)));
      },
      30_000,
      'both workers polling the task queue',
    );
    for (const worker of [first, second]) {
      const ready = await fetch(`${worker.url}/ready`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({
        status: 'ready',
        worker: 'RUNNING',
        dependencies: { database: { status: 'healthy' }, workflowEngine: { status: 'healthy' } },
      });
    }
  });

  it('releases a HELD reservation past its expiry when the schedule runs the sweep', async () => {
    const { order, productId } = await shop.placeOrder({ sku: 'stale', quantity: 2, onHand: 2, holdMs: 60_000 });
    // Its lifecycle workflow would cancel it too: stop that one so the schedule's sweep is what releases the hold.
    const lifecycle = await shop.started(workflowIds.orderLifecycle(order.id.toString()));
    await lifecycle.terminate('the sweep is under test');
    // The hold runs out, as if an hour had passed.
    await shop.commerce.platform.database.pool.query(
      "UPDATE inventory_reservations SET expires_at = now() - interval '1 second' WHERE order_id = $1",
      [order.id.toString()],
    );
    expect(await stockOf(productId)).toMatchObject({ onHand: 2, reserved: 2 });
    await shop.client.schedule.getHandle('expire-stale-reservations').trigger();
    await waitFor(async () => (await stockOf(productId)).reserved === 0, 30_000, 'the sweep to release the hold');
    expect(await shop.commerce.platform.database.prisma.order.findUniqueOrThrow({ where: { id: order.id } })).toMatchObject({
      status: 'CANCELLED',
      cancelReason: 'the stock hold expired before payment',
    });
    const { rows } = await shop.commerce.platform.database.pool.query<{ payload: Record<string, unknown> }>(
      "SELECT payload FROM outbox_events WHERE name = 'shop.inventory.stock_changed.v1' AND payload->>'product_id' = $1 AND payload->>'reason' = 'reservation_released'",
      [productId.toString()],
    );
    expect(rows.map((row) => row.payload)).toMatchObject([
      { previous_quantity: 0, new_quantity: 2, delta: 2, order_id: order.id.toString() },
    ]);
    await shop.saveHistory(await lastRunOf(WORKFLOW_TYPES.expireStaleReservations), WORKFLOW_TYPES.expireStaleReservations, 'released');
  });

  it('deletes a cart left alone past its expiry when the schedule runs the cleanup', async () => {
    const cart = await shop.commerce.platform.database.prisma.cart.create({
      data: { channelId: shop.catalog.channelId, sessionId: 's-abandoned', currency: 'EUR', expiresAt: new Date(Date.now() - 1_000) },
    });
    await shop.client.schedule.getHandle('cleanup-expired-carts').trigger();
    await waitFor(
      async () => (await shop.commerce.platform.database.prisma.cart.count({ where: { id: cart.id } })) === 0,
      30_000,
      'the cleanup',
    );
    await shop.saveHistory(await lastRunOf(WORKFLOW_TYPES.cleanupExpiredCarts), WORKFLOW_TYPES.cleanupExpiredCarts, 'deleted');
  });

  it('restarted after a SIGKILL mid-workflow, completes it with each effect once', async () => {
    const { order, productId } = await shop.placeOrder({ sku: 'killed', holdMs: 8_000 });
    const handle = await shop.started(workflowIds.orderLifecycle(order.id.toString()));
    await waitFor(
      () =>
        runTimers(handle).then(
          ({ timers }) => timers.includes('running'),
          () => false,
        ),
      30_000,
      'the lifecycle to start its payment timer',
    );
    for (const worker of workers.splice(0)) worker.process.child.kill('SIGKILL');
    // The payment deadline passes with no worker: the server fires the timer, and nothing acts on it yet.
    await eventually(async () => expect((await runTimers(handle)).timers).toEqual(['fired']), { timeoutMs: 30_000 });
    expect((await shop.commerce.platform.database.prisma.order.findUniqueOrThrow({ where: { id: order.id } })).status).toBe(
      'PENDING_PAYMENT',
    );
    workers.push(await shop.startWorker());
    await expect(handle.result()).resolves.toEqual({ status: 'CANCELLED' });
    const { rows } = await shop.commerce.platform.database.pool.query<{ name: string }>(
      "SELECT name FROM outbox_events WHERE payload->>'order_id' = $1 AND name <> 'shop.orders.placed.v1' ORDER BY id",
      [order.id.toString()],
    );
    expect(rows.map((row) => row.name)).toEqual([
      'shop.inventory.stock_changed.v1',
      'order.status_changed',
      'shop.orders.status_changed.v1',
      'shop.inventory.stock_changed.v1',
      'order.status_changed',
      'shop.orders.status_changed.v1',
    ]);
    expect(await stockOf(productId)).toMatchObject({ onHand: 5, reserved: 0 });
  });

  it('stops on SIGTERM with exit code 0', async () => {
    for (const worker of workers.splice(0)) expect(await worker.stop()).toBe(0);
  });

  it('refuses to start without WORKFLOW_HOST, naming it', async () => {
    const refused = spawnService(WORKER_MAIN, { NODE_ENV: 'test', DATABASE_URL: shop.databaseUrl });
    expect((await refused.exited()).code).toBe(78);
    expect(refused.output().trim()).toBe('config error: WORKFLOW_HOST: is required by the worker (the Temporal frontend, host:port)');
  });
});
