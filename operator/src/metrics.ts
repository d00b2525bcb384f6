import type { ShopStatus } from '@shop/cdk8s';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { CONDITION_TYPES } from './reconcile/conditions.ts';
import { parseShopKey } from './shop-resource.ts';

export type PassResult = 'success' | 'error';
/** What became of one monitoring object in a pass. */
export type MonitoringApplyResult = 'applied' | 'unchanged' | 'refused';

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
  readonly monitoringApplies = new Counter({
    name: 'shop_operator_monitoring_applies_total',
    help: 'Monitoring objects (dashboard ConfigMaps, PrometheusRules, PodMonitors) a pass provisions, by result: applied, unchanged (stored as this instance last applied it: not sent), or refused by the API server.',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  readonly leader = new Gauge({
    name: 'shop_operator_leader',
    help: '1 while this instance holds the leader Lease and reconciles, else 0.',
    registers: [this.registry],
  });

  /** Each Shop's status as the last pass of this instance worked it out, while it leads. */
  readonly #shops = new Map<string, ShopStatus>();
  /** The Shops whose last pass ended in an error (retried with backoff). */
  readonly #failing = new Set<string>();

  constructor(queueDepth: () => number) {
    const shops = this.#shops;
    const failing = this.#failing;
    const perShop = <T extends string>(
      name: string,
      help: string,
      labelNames: readonly T[],
      collect: (gauge: Gauge<T | 'namespace' | 'shop'>) => void,
    ) =>
      new Gauge({
        name,
        help,
        labelNames: ['namespace', 'shop', ...labelNames],
        registers: [this.registry],
        collect() {
          this.reset(); // a Shop that is gone, or a value it no longer has, has no series
          collect(this);
        },
      });
    const labelsOf = (key: string) => {
      const { namespace, name } = parseShopKey(key);
      return { namespace, shop: name };
    };
    new Gauge({
      name: 'shop_operator_shops',
      help: 'Shops by the phase the leader last wrote to their status (a follower reports none).',
      labelNames: ['phase'] as const,
      registers: [this.registry],
      collect() {
        this.reset(); // a phase no Shop is in any more has no series
        for (const { phase } of shops.values()) if (phase) this.inc({ phase });
      },
    });
    perShop('shop_operator_shop_ready', 'Per Shop: 1 while its Ready condition is True, else 0.', [], (gauge) => {
      for (const [key, status] of shops) gauge.set(labelsOf(key), conditionOf(status, 'Ready')?.status === 'True' ? 1 : 0);
    });
    perShop(
      'shop_operator_shop_condition',
      "Per Shop and condition: 1 on the series of the condition's current status and reason.",
      ['condition', 'status', 'reason'],
      (gauge) => {
        for (const [key, status] of shops) {
          for (const type of CONDITION_TYPES) {
            const condition = conditionOf(status, type);
            if (condition) gauge.set({ ...labelsOf(key), condition: type, status: condition.status, reason: condition.reason }, 1);
          }
        }
      },
    );
    perShop(
      'shop_operator_shop_reconcile_error',
      'Per Shop: 1 while its last pass ended in an error (retried with backoff; the status message says why when it could be written), else 0.',
      [],
      (gauge) => {
        for (const key of new Set([...shops.keys(), ...failing])) gauge.set(labelsOf(key), failing.has(key) ? 1 : 0);
      },
    );
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
    for (const result of ['applied', 'unchanged', 'refused'] as const) this.monitoringApplies.inc({ result }, 0);
    collectDefaultMetrics({ register: this.registry });
  }

  /** Times the pass of the Shop `key` and counts its result. */
  async observe<T>(key: string, pass: () => Promise<T>): Promise<T> {
    const stopTimer = this.reconcileDuration.startTimer();
    try {
      const outcome = await pass();
      this.reconciles.inc({ result: 'success' });
      this.#failing.delete(key);
      return outcome;
    } catch (error) {
      this.reconciles.inc({ result: 'error' });
      this.#failing.add(key);
      throw error;
    } finally {
      stopTimer();
    }
  }

  /** The status a pass of the Shop `key` worked out (written or already stored); undefined once the Shop is gone. */
  reportShop(key: string, status: ShopStatus | undefined): void {
    if (status) {
      this.#shops.set(key, status);
      return;
    }
    this.#shops.delete(key);
    this.#failing.delete(key);
  }

  /** Forgets every Shop: the next leader reports them. */
  forgetShops(): void {
    this.#shops.clear();
    this.#failing.clear();
  }
}

const conditionOf = (status: ShopStatus, type: string) => status.conditions?.find((condition) => condition.type === type);
