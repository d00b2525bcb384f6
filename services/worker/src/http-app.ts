import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { runProbe, type Platform, type Probe, type ProbeResult } from '@shop/platform';

/** Each dependency gets this long to answer a readiness probe (the api's probe budget). */
const PROBE_TIMEOUT_MS = 1_500;

export interface WorkerReadiness {
  readonly status: 'ready' | 'not_ready';
  /** RUNNING while the worker polls its task queue. */
  readonly worker: string;
  readonly dependencies: { readonly database: ProbeResult; readonly workflowEngine: ProbeResult };
}

export interface WorkerAppOptions {
  readonly platform: Pick<Platform, 'logger' | 'metrics' | 'database'>;
  readonly workflowEngine: Probe;
  workerState(): string;
  /** The Temporal SDK's own metrics (Prometheus text), appended to the process's. */
  runtimeMetrics(): Promise<string>;
}

/**
 * The worker's small HTTP server, for machines only: `/health` (liveness, touches nothing), `/ready`
 * (polling, with Temporal and the database answering) and `/metrics` (the process registry followed
 * by the SDK's workflow, activity and task-queue metrics). Requests are not logged.
 */
export function buildWorkerApp(options: WorkerAppOptions): FastifyInstance {
  const { platform } = options;
  const app = Fastify({
    loggerInstance: platform.logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    forceCloseConnections: true,
  });

  app.get('/health', async () => ({ status: 'ok' }));

  app.get('/ready', async (_request, reply) => {
    const [database, workflowEngine] = await Promise.all([
      runProbe(platform.database, PROBE_TIMEOUT_MS),
      runProbe(options.workflowEngine, PROBE_TIMEOUT_MS),
    ]);
    const worker = options.workerState();
    const ready = worker === 'RUNNING' && database.status === 'healthy' && workflowEngine.status === 'healthy';
    const body: WorkerReadiness = { status: ready ? 'ready' : 'not_ready', worker, dependencies: { database, workflowEngine } };
    reply.header('cache-control', 'no-store');
    return reply.code(ready ? 200 : 503).send(body);
  });

  app.get('/metrics', async (_request, reply) => {
    const [own, runtime] = await Promise.all([platform.metrics.metrics(), options.runtimeMetrics()]);
    reply.header('content-type', platform.metrics.contentType);
    return `${own}\n${runtime}`;
  });

  return app;
}
