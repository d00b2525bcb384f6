import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Worker } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import {
  createEmitter,
  createLogger,
  discoverExtensionsOrExit,
  exitWithConfigProblems,
  gracefulStop,
  loadConfigOrExit,
  openPlatform,
  outboxMetrics,
  refuseExtensionRevisionMismatch,
  type Platform,
  type Probe,
  type RunTransaction,
} from '@shop/platform';
import { PERIODIC_WORKFLOWS, TASK_QUEUE } from '@shop/domain/workflows';
import { sweepPassDeps } from '@shop/domain/flows';
import { createActivities } from './activities/create-activities.ts';
import { loadExtensionWorkflows, WorkflowDeclarationError } from './extension-workflows.ts';
import { buildWorkerApp } from './http-app.ts';
import { ensureSchedules } from './schedules.ts';
import { installTemporalRuntime } from './temporal-runtime.ts';
import { loadWorkerSettingsOrExit } from './worker-settings.ts';

export const WORKFLOWS_PATH = fileURLToPath(new URL('./workflows/index.ts', import.meta.url));

/** The folder holding @temporalio/workflow: extension workflow modules outside the deployment (SHOP_DEV_EXTENSIONS) resolve it there. */
const DEPLOYMENT_MODULES = path.resolve(path.dirname(createRequire(import.meta.url).resolve('@temporalio/workflow/package.json')), '../..');

/**
 * The workflows, bundled for the SDK's isolated V8 context; webpack's report is only logged when it warns.
 * With extension workflow modules (absolute paths), the entry is a generated module re-exporting the
 * core's and theirs (loadExtensionWorkflows has refused a type taken twice).
 */
export async function bundleWorkflows(extensionModules: readonly string[] = []) {
  const logger = new DefaultLogger('WARN');
  if (extensionModules.length === 0) return bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger });
  const dir = await mkdtemp(path.join(tmpdir(), 'shop-workflows-'));
  try {
    const entry = path.join(dir, 'index.ts');
    await writeFile(entry, [WORKFLOWS_PATH, ...extensionModules].map((file) => `export * from ${JSON.stringify(file)};\n`).join(''));
    return await bundleWorkflowCode({
      workflowsPath: entry,
      logger,
      webpackConfigHook: (config) => ({
        ...config,
        resolve: { ...config.resolve, modules: [...(config.resolve?.modules ?? []), DEPLOYMENT_MODULES] },
      }),
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

interface Started {
  platform?: Platform;
  nativeConnection?: NativeConnection;
  clientConnection?: Connection;
  worker?: Worker;
  running?: Promise<void>;
  app?: FastifyInstance;
}

/** The engine answers when its health service says SERVING. */
function workflowEngineProbe(connection: Connection): Probe {
  return {
    mode: 'external',
    async ping() {
      const { status } = await connection.healthService.check({});
      if (status !== 1) throw new Error(`the Temporal frontend answered health status ${String(status)}`);
    },
  };
}

/**
 * The worker process: configuration, platform, the declared schedules, the Temporal worker on the
 * shared task queue and the probe/metrics server, with a graceful stop on SIGTERM/SIGINT (stop
 * polling, let running activities finish within SHUTDOWN_TIMEOUT_MS, then the server and the
 * platform). Exits 1 when it cannot start or the worker fails.
 */
export async function runWorkerProcess(): Promise<void> {
  const config = loadConfigOrExit();
  const settings = loadWorkerSettingsOrExit(config);
  const logger = createLogger({ level: config.logLevel, service: 'worker' });
  const extensions = await discoverExtensionsOrExit(config, logger);
  const runtime = await installTemporalRuntime(logger);

  const started: Started = {};
  // The SDK lets running activities finish within SHUTDOWN_TIMEOUT_MS; the connections close after.
  const { exitAfterStopping } = gracefulStop(
    { logger, timeoutMs: config.shutdownTimeoutMs + 5_000, stoppingMessage: 'stopping: no new tasks; running activities may finish' },
    async () => {
      if (started.worker?.getState() === 'RUNNING') started.worker.shutdown();
      await started.running?.catch(() => undefined);
      await started.app?.close();
      await started.clientConnection?.close();
      await started.nativeConnection?.close();
      await started.platform?.close();
    },
  );

  try {
    const platform = (started.platform = await openPlatform(config, logger, 'worker'));
    // The worker runs the schedules too: it never migrates, and refuses an extension's database at another revision.
    await refuseExtensionRevisionMismatch(platform, extensions);
    const emitter = createEmitter({
      mode: config.eventSchemaMode,
      logger,
      metrics: outboxMetrics(platform.metrics, platform.database.pool),
    });
    const transaction: RunTransaction = (work, options) => emitter.transaction(platform.database.prisma, work, options);
    const coreActivities = createActivities(sweepPassDeps(platform, { emit: emitter.emit, transaction }));
    const extended = await loadExtensionWorkflows(extensions, {
      masterKeys: platform.masterKeys,
      transaction,
      coreActivities: Object.keys(coreActivities),
    }).catch((error: unknown) => {
      if (!(error instanceof WorkflowDeclarationError)) throw error;
      logger.flush();
      return exitWithConfigProblems([error.message]);
    });
    started.clientConnection = await Connection.connect({ address: settings.workflowHost });
    started.nativeConnection = await NativeConnection.connect({ address: settings.workflowHost });
    await ensureSchedules(new Client({ connection: started.clientConnection, namespace: settings.namespace }), logger, [
      ...PERIODIC_WORKFLOWS,
      ...extended.schedules,
    ]);

    const worker = (started.worker = await Worker.create({
      connection: started.nativeConnection,
      namespace: settings.namespace,
      taskQueue: TASK_QUEUE,
      workflowBundle: await bundleWorkflows(extended.modules),
      activities: { ...coreActivities, ...extended.activities },
      // Below the pool's size: activities holding every connection while one more waits for a read would stall (docs/money.md).
      maxConcurrentActivityTaskExecutions: settings.activityConcurrency,
      shutdownGraceTime: config.shutdownTimeoutMs,
    }));
    started.running = worker.run();
    started.running.catch((error: unknown) => {
      logger.fatal({ err: error }, 'the Temporal worker failed');
      void exitAfterStopping(1);
    });

    started.app = buildWorkerApp({
      platform,
      workflowEngine: workflowEngineProbe(started.clientConnection),
      workerState: () => worker.getState(),
      runtimeMetrics: () => runtime.metrics(),
    });
    await started.app.listen({ host: config.host, port: settings.port });
    logger.info(
      { namespace: settings.namespace, task_queue: TASK_QUEUE, workflow_host: settings.workflowHost },
      'polling for workflow and activity tasks',
    );
  } catch (error) {
    logger.fatal({ err: error }, 'the worker could not start');
    await exitAfterStopping(1);
  }
}
