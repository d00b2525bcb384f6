// Temporal's time-skipping test server for the workflow tests that wait out a timer: while a test awaits
// a run's result and nothing else is due, the server moves its clock straight to the next timer, so a
// 30-minute payment window passes in milliseconds. It has no Schedules, no namespaces to register and no
// visibility queries: tests that need those stay on the dev server (test/infra/README.md).
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, expect } from 'vitest';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { sweepPassDeps } from '@shop/domain/flows';
import { TASK_QUEUE } from '@shop/domain/workflows';
import { temporalTestServerExecutable } from '../infra/temporal-test-server.ts';
import { createActivities } from '../../services/worker/src/activities/create-activities.ts';
import { bundleWorkflows } from '../../services/worker/src/run-process.ts';
import { openWorkflowShop, type WorkflowShop } from './workflows.ts';

let runtimeInstalled = false;

/**
 * A test server of its own, started by the SDK from the provisioned executable (TEMPORAL_TEST_SERVER_BIN
 * names another). Its clock is shared by every run on it: one environment per group of tests whose
 * timers must not run into each other's, torn down with `teardown()`.
 */
export async function timeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  // The SDK's default runtime logs every worker state change, and takes over SIGINT and SIGTERM.
  if (!runtimeInstalled) Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [] });
  runtimeInstalled = true;
  return TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: temporalTestServerExecutable() } },
  });
}

export interface TimeSkippingShop {
  readonly shop: WorkflowShop;
  readonly env: TestWorkflowEnvironment;
  close(): Promise<void>;
}

let bundle: ReturnType<typeof bundleWorkflows> | undefined;

/**
 * A workflow shop on a time-skipping environment of its own, with the worker run-process.ts builds (the
 * same workflow bundle and activities on the shop's database) in the test process: a worker process
 * creates the Schedules at start, which the test server does not have.
 */
export async function openTimeSkippingShop(name: string): Promise<TimeSkippingShop> {
  const env = await timeSkippingEnv();
  const opened: { shop?: WorkflowShop; running?: Promise<void>; worker?: Worker } = {};
  const close = async (): Promise<void> => {
    if (opened.worker?.getState() === 'RUNNING') opened.worker.shutdown();
    await opened.running;
    await opened.shop?.close();
    await env.teardown();
  };
  try {
    const shop = (opened.shop = await openWorkflowShop(name, { timeSkipping: env }));
    const { platform } = shop.commerce;
    const activities = createActivities(
      sweepPassDeps(platform, { emit: shop.deps.emit, transaction: (work, options) => shop.commerce.transaction(work, options) }),
    );
    bundle ??= bundleWorkflows();
    const worker = (opened.worker = await Worker.create({
      connection: env.nativeConnection,
      namespace: shop.namespace,
      taskQueue: TASK_QUEUE,
      workflowBundle: await bundle,
      activities,
    }));
    opened.running = worker.run();
    return { shop, env, close };
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}

/**
 * Opens a time-skipping shop before the tests of the enclosing describe and closes it after them; the
 * returned function gives it to a test. One per group, since the server's clock stays where a test left it.
 */
export function timeSkippingShopPerGroup(name: string): () => TimeSkippingShop {
  let opened: TimeSkippingShop | undefined;
  beforeAll(async () => {
    opened = await openTimeSkippingShop(name);
  }, 180_000);
  afterAll(async () => {
    await opened?.close();
  });
  return () => {
    if (opened === undefined) throw new Error(`the time-skipping shop ${name} did not open`);
    return opened;
  };
}

/** A timer fired at `due` (ms since the epoch) on the server's clock: not before, and within the minute its run's other steps may take. */
export function expectFiredAt(firedAt: number | undefined, due: number): void {
  expect(firedAt).toBeGreaterThanOrEqual(due);
  expect(firedAt).toBeLessThan(due + 60_000);
}
