import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflowIds } from '@shop/domain/workflows';
import { openWorkflowShop, type RunningWorker, type WorkflowShop } from '../../test/support/workflows.ts';
import { EXTERNAL_METRICS } from '../src/external-metrics.ts';

let shop: WorkflowShop;
let worker: RunningWorker;

beforeAll(async () => {
  shop = await openWorkflowShop('sdk-metrics');
  worker = await shop.startWorker();
}, 180_000);

afterAll(async () => {
  await shop?.close();
});

describe('the Temporal SDK metrics the dashboards and alerts use', () => {
  it("are on the worker's /metrics once a workflow completed and one was cancelled", async () => {
    const completing = await shop.placeOrder({ sku: 'sdk-completed', holdMs: 2_000 });
    const cancelled = await shop.placeOrder({ sku: 'sdk-cancelled', holdMs: 60_000 });
    const completed = await shop.started(workflowIds.orderLifecycle(completing.order.id.toString()));
    const toCancel = await shop.started(workflowIds.orderLifecycle(cancelled.order.id.toString()));
    // The unpaid order is cancelled at its payment deadline: the run completes after an activity ran.
    await expect(completed.result()).resolves.toEqual({ status: 'CANCELLED' });
    await toCancel.cancel();
    await expect(toCancel.result()).rejects.toThrow();

    const text = await (await fetch(`${worker.url}/metrics`)).text();
    const exported = new Set(
      text
        .split('\n')
        .filter((line) => line !== '' && !line.startsWith('#'))
        .map((line) => line.split(/[{ ]/)[0]),
    );
    expect(EXTERNAL_METRICS.temporalSdk.filter((name) => !exported.has(name))).toEqual([]);
  });
});
