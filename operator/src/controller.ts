import type { KubeConfig } from '@kubernetes/client-node';
import type { RenderShop } from '@shop/cdk8s';
import type { BackoffPolicy } from './backoff.ts';
import { describeError } from './kube/errors.ts';
import { cancellableBy } from './kube/request-deadline.ts';
import type { Logger } from '@shop/runtime';
import type { OperatorMetrics } from './metrics.ts';
import type { RateLimit } from './rate-limit.ts';
import { reconcileShop, type ReconcilerOptions } from './reconcile/reconciler.ts';
import { LastApplied } from './reconcile/last-applied.ts';
import { RenderCache } from './reconcile/render-cache.ts';
import { watchShops } from './watches.ts';
import { JITTER, WorkQueue } from './work-queue.ts';

export interface ControllerOptions extends Omit<ReconcilerOptions, 'renders' | 'lastApplied' | 'watchCache'> {
  readonly kubeConfig: KubeConfig;
  readonly render: RenderShop;
  /** Watch one namespace; all namespaces when undefined. */
  readonly namespace: string | undefined;
  /** Watch Secrets in these namespaces only; where the Shops are watched when undefined. */
  readonly secretNamespaces?: readonly string[];
  readonly metrics: OperatorMetrics;
  readonly logger: Logger;
  /** Every Shop gets a pass this often even when nothing changed: a safety net for missed events and unwatched objects. */
  readonly resyncMs: number;
  readonly backoff: BackoffPolicy;
  /** Passes of different Shops that may run at once. */
  readonly concurrency: number;
  /** How long a pass may run before its API requests are aborted and its Shop is retried with backoff. */
  readonly passTimeoutMs: number;
  /** Retries and requeues of all Shops together come no faster than this. */
  readonly requeueRateLimit: RateLimit;
}

export interface RunningController {
  /** Shops waiting for a pass. */
  depth(): number;
  /** The watched kinds whose first list has not arrived. */
  unsyncedWatches(): string[];
  /** Shops whose pass runs on after its deadline aborted it. */
  overduePasses(): string[];
  /** Aborts the passes under way: their API requests fail, so they write nothing more. */
  cancelPasses(reason: Error): void;
  /** Stops the watches and the resync, then waits for the passes under way to finish. */
  stop(): Promise<void>;
}

/** Watches feeding a work queue of Shop keys, one reconcile pass per key at a time. Runs while this instance leads. */
export function startController(options: ControllerOptions): RunningController {
  const { logger, metrics } = options;
  // Events come once the first lists arrive, after the queue exists.
  const watches = watchShops({ ...options, enqueue: (key) => queue.add(key) });
  const reconcilerOptions: ReconcilerOptions = {
    ...options,
    renders: new RenderCache(options.render),
    lastApplied: new LastApplied(),
    watchCache: watches,
    onStatus: (key, status) => metrics.reportShop(key, status),
    onMonitoringApply: (result) => metrics.monitoringApplies.inc({ result }),
  };
  const cancelled = new AbortController();
  const queue = new WorkQueue({
    handle: (key, deadline) =>
      metrics.observe(key, () => cancellableBy(AbortSignal.any([deadline, cancelled.signal]), () => reconcileShop(key, reconcilerOptions))),
    concurrency: options.concurrency,
    passTimeoutMs: options.passTimeoutMs,
    rateLimit: options.requeueRateLimit,
    backoff: options.backoff,
    onError: (key, error, retryInMs) => logger.warn({ shop: key, error: describeError(error), retryInMs }, 'reconcile failed; retrying'),
  });
  // Each Shop at a random moment of the period's first tenth, so that thousands do not come at once.
  const resync = setInterval(() => {
    for (const key of watches.shopKeys()) queue.addAfter(key, Math.random() * options.resyncMs * JITTER);
  }, options.resyncMs);
  return {
    depth: () => queue.depth(),
    overduePasses: () => queue.overdue(),
    unsyncedWatches: () => watches.unsynced(),
    cancelPasses: (reason) => cancelled.abort(reason),
    stop: async () => {
      clearInterval(resync);
      await watches.stop();
      await queue.stop();
      metrics.forgetShops();
    },
  };
}
