import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '@shop/runtime';
import type { RenderShop } from '@shop/cdk8s';
import type { BackoffPolicy } from './backoff.ts';
import { startController, type RunningController } from './controller.ts';
import { startProbeServer } from './http-server.ts';
import { kubeClients } from './kube/clients.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS } from './kube/request-deadline.ts';
import { DEFAULT_FAILURE_THRESHOLDS } from './kube/pod-failures.ts';
import { DEFAULT_LEASE_TIMINGS, LeaderElector, type LeaseTimings } from './leader-election.ts';
import { OperatorMetrics } from './metrics.ts';
import type { ReconcileStep } from './reconcile/pass.ts';
import { DEFAULT_ROLLOUT_PACE, RolloutGate, type RolloutPace } from './reconcile/rollout-gate.ts';
import { shopSteps } from './reconcile/steps.ts';

export interface OperatorOptions {
  readonly kubeConfig: KubeConfig;
  readonly render: RenderShop;
  /** The reconcile steps; the Shop steps unless given. */
  readonly steps?: readonly ReconcileStep[];
  /** Reconcile the Shops of one namespace; all namespaces when undefined. */
  readonly namespace?: string;
  /** Watch Secrets in these namespaces only; where the Shops are watched when undefined. */
  readonly secretNamespaces?: readonly string[];
  /** Port of /metrics and /healthz; 0 picks a free one. */
  readonly metricsPort: number;
  /** The Lease to elect a leader on; without one this instance reconciles at once (run a single replica). */
  readonly leaderElection?: { readonly namespace: string; readonly name: string; readonly timings?: LeaseTimings };
  /** Unique per process: the Lease holder and the Events' reporting instance. */
  readonly identity: string;
  readonly resyncMs?: number;
  readonly backoff?: BackoffPolicy;
  readonly concurrency?: number;
  readonly logger: Logger;
  /** The operator's RUNBOOK_BASE_URL (ending in /): the provisioned alert rules link their runbooks there. */
  readonly runbookBaseUrl?: string;
  /** How many migration Jobs, and how many key rewrap Jobs, each Shop keeps. */
  readonly jobHistoryLimit?: number;
  /** How long a pod may stay Pending before the Shop is Degraded; DEFAULT_POD_START_TIMEOUT_MS unless given. */
  readonly podStartTimeoutMs?: number;
  /** How many Shops an upgraded operator that renders them differently rolls per interval; DEFAULT_ROLLOUT_PACE unless given. */
  readonly rolloutPace?: RolloutPace;
  /** The time a pass runs at; the system clock unless given (tests move it past a key's retention). */
  readonly now?: () => Date;
  /** How long one API request may take, its answer included; DEFAULT_REQUEST_TIMEOUT_MS unless given. */
  readonly requestTimeoutMs?: number;
  /** How long one pass may take before its requests are aborted; DEFAULT_PASS_TIMEOUT_MS unless given. */
  readonly passTimeoutMs?: number;
  /**
   * Called once another holder has the Lease or the renew deadline passed, after the passes under
   * way were cancelled (the process exits here); without it, the instance waits to lead again.
   */
  readonly onLostLeadership?: () => void;
}

export interface RunningOperator {
  /** The port /metrics, /healthz and /readyz listen on. */
  readonly metricsPort: number;
  /** Whether this instance reconciles now. */
  isLeader(): boolean;
  /** Stops reconciling (the passes under way finish), releases the Lease, closes the probe server. */
  stop(): Promise<void>;
}

// Every kind the operator applies is watched; the resync is for missed events, and notices the Prometheus Operator CRDs once installed.
export const DEFAULT_RESYNC_MS = 30 * 60_000;
// A pass takes well under a second when the API server answers; this allows several slow requests.
export const DEFAULT_PASS_TIMEOUT_MS = 2 * 60_000;
const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 1_000, maxMs: 5 * 60_000 };
// Passes mostly wait on the API server, so many can run at once; one Shop is still never in two.
const DEFAULT_CONCURRENCY = 16;
// client-go's default for its work queues: after 100 at once, 10 a second.
const REQUEUE_RATE_LIMIT = { perSecond: 10, burst: 100 };

export async function startOperator(options: OperatorOptions): Promise<RunningOperator> {
  const { logger } = options;
  const clients = kubeClients(options.kubeConfig, options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS);
  let controller: RunningController | undefined;
  const metrics = new OperatorMetrics(() => controller?.depth() ?? 0);
  const overdue = (): string | undefined => {
    const keys = controller?.overduePasses() ?? [];
    return keys.length === 0 ? undefined : `passes still running after their deadline aborted them: ${keys.join(', ')}`;
  };
  // A follower is ready: waiting for the Lease is its job. A leader is once its caches are filled.
  const unsynced = (): string | undefined => {
    const kinds = controller?.unsyncedWatches() ?? [];
    return kinds.length === 0 ? undefined : `watches not synced yet: ${kinds.join(', ')}`;
  };
  const probes = await startProbeServer(options.metricsPort, metrics.registry, { unhealthy: overdue, unready: unsynced });

  const lead = async (): Promise<void> => {
    controller = startController({
      kubeConfig: options.kubeConfig,
      clients,
      render: options.render,
      steps: options.steps ?? shopSteps,
      namespace: options.namespace,
      secretNamespaces: options.secretNamespaces,
      instance: options.identity,
      logger,
      metrics,
      resyncMs: options.resyncMs ?? DEFAULT_RESYNC_MS,
      backoff: options.backoff ?? DEFAULT_BACKOFF,
      concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
      passTimeoutMs: options.passTimeoutMs ?? DEFAULT_PASS_TIMEOUT_MS,
      requeueRateLimit: REQUEUE_RATE_LIMIT,
      runbookBaseUrl: options.runbookBaseUrl,
      jobHistoryLimit: options.jobHistoryLimit,
      failureThresholds: {
        ...DEFAULT_FAILURE_THRESHOLDS,
        ...(options.podStartTimeoutMs === undefined ? {} : { podStartTimeoutMs: options.podStartTimeoutMs }),
      },
      now: options.now,
      rolloutGate: new RolloutGate(options.rolloutPace ?? DEFAULT_ROLLOUT_PACE, () => (options.now?.() ?? new Date()).getTime()),
    });
    metrics.leader.set(1);
  };
  const stepDown = async (lost = false): Promise<void> => {
    metrics.leader.set(0);
    const stopping = controller;
    controller = undefined;
    if (lost) {
      // Another instance may be reconciling already: a pass of this one must not write after it.
      stopping?.cancelPasses(new Error('this instance lost the leader Lease'));
      options.onLostLeadership?.();
    }
    await stopping?.stop();
  };

  const election = options.leaderElection;
  const elector =
    election &&
    new LeaderElector({
      coordination: clients.coordination,
      namespace: election.namespace,
      name: election.name,
      identity: options.identity,
      timings: election.timings ?? DEFAULT_LEASE_TIMINGS,
      onStartedLeading: lead,
      onStoppedLeading: stepDown,
      logger,
    });
  if (elector) elector.start();
  else await lead();

  return {
    metricsPort: probes.port,
    isLeader: () => controller !== undefined,
    stop: async () => {
      if (elector) await elector.stop();
      else await stepDown();
      await probes.close();
    },
  };
}
