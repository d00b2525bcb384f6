import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { runProbe, type Platform, type ProbeResult } from '@shop/platform';
import type { GroupState } from './group-consumer.ts';

/** The database gets this long to answer a readiness probe (the api's probe budget). */
const PROBE_TIMEOUT_MS = 1_500;

export interface ConsumerReadiness {
  readonly status: 'ready' | 'not_ready';
  readonly groups: Record<string, GroupState>;
  readonly dependencies: { readonly database: ProbeResult };
}

export interface RunningGroups {
  isRunning(): boolean;
  states(): Record<string, GroupState>;
}

/**
 * The consumer's own small HTTP server, for machines only: `/health` (liveness, touches nothing),
 * `/ready` (every group consuming and the database answering) and `/metrics` (the process registry).
 * Requests are not logged: kubelets and Prometheus call these every few seconds.
 */
export function buildConsumerApp(platform: Pick<Platform, 'logger' | 'metrics' | 'database'>, groups: RunningGroups): FastifyInstance {
  const app = Fastify({
    loggerInstance: platform.logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    forceCloseConnections: true,
  });

  app.get('/health', async () => ({ status: 'ok' }));

  app.get('/ready', async (_request, reply) => {
    const database = await runProbe(platform.database, PROBE_TIMEOUT_MS);
    const ready = groups.isRunning() && database.status === 'healthy';
    const body: ConsumerReadiness = { status: ready ? 'ready' : 'not_ready', groups: groups.states(), dependencies: { database } };
    reply.header('cache-control', 'no-store');
    return reply.code(ready ? 200 : 503).send(body);
  });

  app.get('/metrics', async (_request, reply) => {
    reply.header('content-type', platform.metrics.contentType);
    return platform.metrics.metrics();
  });

  return app;
}
