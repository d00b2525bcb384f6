import { collectDefaultMetrics, Registry } from 'prom-client';

/** One registry per process, with Node's process metrics (CPU, memory, event loop, GC). */
export function createMetricsRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}
