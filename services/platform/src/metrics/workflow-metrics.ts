import { Counter, type Registry } from 'prom-client';

export interface WorkflowMetrics {
  /** A workflow assumption proved false (spec: workflow faults), by workflow type and reason. */
  readonly faults: Counter<'workflow' | 'reason'>;
  /** Rows a periodic sweep ended: reservations expired, orders cancelled, carts deleted. */
  readonly swept: Counter<'sweep' | 'what'>;
}

const METRICS_BY_REGISTRY = new WeakMap<Registry, WorkflowMetrics>();

/**
 * Registers the workflow metrics once per registry: the worker counts what its activities did, and
 * the api the same when it runs the sweeps itself (no workflow engine).
 */
export function workflowMetrics(registry: Registry): WorkflowMetrics {
  const cached = METRICS_BY_REGISTRY.get(registry);
  if (cached !== undefined) return cached;
  const registers = [registry];
  const metrics: WorkflowMetrics = {
    faults: new Counter({
      name: 'workflow_faults_total',
      help: 'Workflow assumptions that proved false, recorded in workflow_faults',
      labelNames: ['workflow', 'reason'],
      registers,
    }),
    swept: new Counter({
      name: 'workflow_sweep_rows_total',
      help: 'Rows the periodic sweeps ended (what: reservations, cancelled_orders, carts)',
      labelNames: ['sweep', 'what'],
      registers,
    }),
  };
  METRICS_BY_REGISTRY.set(registry, metrics);
  return metrics;
}
