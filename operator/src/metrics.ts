import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Phase } from './reconcile/pass.ts';

export type PassResult = 'success' | 'error';

/** The operator's Prometheus metrics, in a registry of its own (two operators in one process do not collide). */
export class OperatorMetrics {
  readonly registry = new Registry();
  readonly reconciles = new Counter({
    name: 'shop_operator_reconcile_total',
    help: 'Reconcile passes, by result: success, or error (retried with backoff).',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  readonly reconcileDuration = new Histogram({
    name: 'shop_operator_reconcile_duration_seconds',
    help: 'Time one reconcile pass of one Shop takes.',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly leader = new Gauge({
    name: 'shop_operator_leader',
    help: '1 while this instance holds the leader Lease and reconciles, else 0.',
    registers: [this.registry],
  });

  /** The phase of each Shop as last written by this instance while it leads. */
  readonly shopPhases = new Map<string, Phase>();

  constructor(queueDepth: () => number) {
    const shopPhases = this.shopPhases;
    new Gauge({
      name: 'shop_operator_shops',
      help: 'Shops by the phase the leader last wrote to their status (a follower reports none).',
      labelNames: ['phase'] as const,
      registers: [this.registry],
      collect() {
        this.reset(); // a phase no Shop is in any more has no series
        for (const phase of shopPhases.values()) this.inc({ phase });
      },
    });
    new Gauge({
      name: 'shop_operator_queue_depth',
      help: 'Shops waiting for a reconcile pass.',
      registers: [this.registry],
      collect() {
        this.set(queueDepth());
      },
    });
    this.leader.set(0);
    for (const result of ['success', 'error'] as const) this.reconciles.inc({ result }, 0);
    collectDefaultMetrics({ register: this.registry });
  }

  /** Times `pass` and counts its result. */
  async observe<T>(pass: () => Promise<T>): Promise<T> {
    const stopTimer = this.reconcileDuration.startTimer();
    try {
      const outcome = await pass();
      this.reconciles.inc({ result: 'success' });
      return outcome;
    } catch (error) {
      this.reconciles.inc({ result: 'error' });
      throw error;
    } finally {
      stopTimer();
    }
  }
}
