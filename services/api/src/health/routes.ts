import type { FastifyInstance } from 'fastify';
import { runProbe, type Probe, type ProbeResult } from '@shop/platform';

export type Dependencies = Readonly<Record<'database' | 'cache' | 'broker', Probe>>;

/** Each dependency gets this long to answer; the probes run in parallel, so /ready answers within it. */
export const PROBE_TIMEOUT_MS = 1_500;

export interface Readiness {
  readonly status: 'ready' | 'not_ready';
  readonly dependencies: Record<keyof Dependencies, ProbeResult>;
}

export async function checkReadiness(dependencies: Dependencies, timeoutMs = PROBE_TIMEOUT_MS): Promise<Readiness> {
  const names = Object.keys(dependencies) as Array<keyof Dependencies>;
  const results = await Promise.all(names.map((name) => runProbe(dependencies[name], timeoutMs)));
  const byName = Object.fromEntries(names.map((name, i) => [name, results[i]])) as Readiness['dependencies'];
  const ready = results.every((result) => result.status === 'healthy');
  return { status: ready ? 'ready' : 'not_ready', dependencies: byName };
}

export interface HealthOptions {
  /**
   * The driver's error text for a failing dependency (addresses, hosts, versions): shown outside
   * production; in production the answer names the dependency and says only "unavailable".
   */
  readonly errorText: boolean;
}

export interface Serving {
  readonly status: 'serving' | 'not_serving';
  readonly dependencies: { readonly database: ProbeResult };
}

/**
 * GET /health touches nothing (liveness); GET /ready probes every dependency, as the spec defines it;
 * GET /serving probes only what the api cannot serve without, its database, and is what a
 * Kubernetes readiness probe asks: while Kafka is down the outbox keeps the events, while Redis is
 * down rate limits fail open, so neither outage should take every api pod out of service.
 */
export function healthRoutes(app: FastifyInstance, dependencies: Dependencies, options: HealthOptions): void {
  const shown = (result: ProbeResult): ProbeResult =>
    options.errorText || result.error === undefined ? result : { ...result, error: 'unavailable' };
  app.get('/health', async () => ({ status: 'ok' }));

  app.get('/serving', async (_request, reply) => {
    const database = await runProbe(dependencies.database, PROBE_TIMEOUT_MS);
    const serving = database.status === 'healthy';
    const body: Serving = { status: serving ? 'serving' : 'not_serving', dependencies: { database: shown(database) } };
    reply.header('cache-control', 'no-store');
    return reply.code(serving ? 200 : 503).send(body);
  });

  app.get('/ready', async (_request, reply) => {
    const readiness = await checkReadiness(dependencies);
    const named = Object.fromEntries(Object.entries(readiness.dependencies).map(([name, result]) => [name, shown(result)]));
    reply.header('cache-control', 'no-store');
    return reply.code(readiness.status === 'ready' ? 200 : 503).send({ ...readiness, dependencies: named });
  });
}
