import { setTimeout as sleep } from 'node:timers/promises';
import { V1MicroTime, type CoordinationV1Api, type V1Lease, type V1LeaseSpec } from '@kubernetes/client-node';
import { describeError, isConflict, isNotFound } from './kube/errors.ts';
import type { Logger } from '@shop/runtime';

export interface LeaseTimings {
  /** How long a follower waits after the leader's last renewal it saw before taking the Lease. */
  readonly leaseDurationMs: number;
  /** How long the leader keeps acting while its renewals fail; must be shorter than the lease duration. */
  readonly renewDeadlineMs: number;
  /** Time between two attempts to acquire or renew. */
  readonly retryPeriodMs: number;
}

export const DEFAULT_LEASE_TIMINGS: LeaseTimings = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

export interface LeaderElectionOptions {
  readonly coordination: CoordinationV1Api;
  readonly namespace: string;
  readonly name: string;
  /** Unique per process: the Lease's holderIdentity. */
  readonly identity: string;
  readonly timings: LeaseTimings;
  readonly onStartedLeading: () => Promise<void>;
  /**
   * Resolves once this instance has stopped acting; the Lease is released only after that. `lost`:
   * another holder has the Lease, or the renew deadline passed; otherwise stop() was called.
   */
  readonly onStoppedLeading: (lost: boolean) => Promise<void>;
  readonly logger: Logger;
}

/**
 * Leader election on a coordination.k8s.io/v1 Lease. The leader renews it every retry period; the
 * others try to take it and succeed once they have seen no renewal for a lease duration, timed by their
 * own clock from when they saw the Lease change (no comparison of clocks across machines). Every write
 * carries the Lease's resourceVersion, so of two candidates only one wins.
 */
export class LeaderElector {
  readonly #options: LeaderElectionOptions;
  readonly #stopping = new AbortController();
  #leading = false;
  #loop: Promise<void> | undefined;
  #observed: { record: string; holder: string | undefined; at: number } | undefined;

  constructor(options: LeaderElectionOptions) {
    this.#options = options;
  }

  isLeader(): boolean {
    return this.#leading;
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  /** Stops acting (onStoppedLeading), then releases the Lease so a follower takes over at once. */
  async stop(): Promise<void> {
    this.#stopping.abort();
    await this.#loop;
  }

  async #run(): Promise<void> {
    const { timings, logger } = this.#options;
    let lastRenewal: number | undefined;
    while (!this.#stopping.signal.aborted) {
      const attempt = this.#acquireOrRenew().catch((error: unknown): Attempt => {
        logger.warn({ error: describeError(error) }, 'could not acquire or renew the leader Lease');
        return 'failed';
      });
      // A leader waits for an answer only until its renew deadline, even when the request's own
      // timeout is longer: it must not keep acting after a follower took over. A late answer is
      // ignored; the next attempt reads the Lease again.
      const result =
        this.#leading && lastRenewal !== undefined ? await settledBefore(attempt, lastRenewal + timings.renewDeadlineMs) : await attempt;
      if (result === 'held') {
        lastRenewal = Date.now();
        if (!this.#leading) {
          this.#leading = true;
          logger.info({ identity: this.#options.identity }, 'became the leader');
          await this.#options.onStartedLeading();
        }
      } else if (
        this.#leading &&
        (result === 'taken' || (lastRenewal !== undefined && Date.now() - lastRenewal >= timings.renewDeadlineMs))
      ) {
        logger.error({ identity: this.#options.identity, holder: this.#observed?.holder }, 'lost the leader Lease: stopping reconciling');
        await this.#stepDown(true);
      }
      await sleep(timings.retryPeriodMs, undefined, { signal: this.#stopping.signal }).catch(() => undefined);
    }
    if (this.#leading) await this.#stepDown(false);
    if (lastRenewal !== undefined) await this.#release();
  }

  async #stepDown(lost: boolean): Promise<void> {
    this.#leading = false;
    await this.#options.onStoppedLeading(lost);
  }

  /** `held`: this instance holds the Lease now; `taken`: another holder's record has not expired. */
  async #acquireOrRenew(): Promise<Attempt> {
    const { coordination, namespace, name, identity, timings } = this.#options;
    const now = new V1MicroTime();
    const ours: V1LeaseSpec = {
      holderIdentity: identity,
      leaseDurationSeconds: Math.ceil(timings.leaseDurationMs / 1000),
      acquireTime: now,
      renewTime: now,
      leaseTransitions: 0,
    };
    const lease = await this.#read();
    try {
      if (!lease) {
        await coordination.createNamespacedLease({ namespace, body: { metadata: { name, namespace }, spec: ours } });
        return 'held';
      }
      const current = lease.spec ?? {};
      const seenAt = this.#observe(current);
      const holder = current.holderIdentity;
      const renewing = holder === identity;
      if (holder && !renewing && Date.now() < seenAt + (current.leaseDurationSeconds ?? 0) * 1000) return 'taken';
      const spec: V1LeaseSpec = {
        ...ours,
        acquireTime: renewing ? current.acquireTime : now,
        leaseTransitions: (current.leaseTransitions ?? 0) + (renewing ? 0 : 1),
      };
      await coordination.replaceNamespacedLease({ name, namespace, body: { ...lease, spec } });
      return 'held';
    } catch (error) {
      if (isConflict(error)) return 'failed'; // another candidate wrote first: the next attempt reads who
      throw error;
    }
  }

  /** When this instance first saw the Lease's current record (holder and renewal). */
  #observe(spec: V1LeaseSpec): number {
    const record = JSON.stringify([spec.holderIdentity, spec.renewTime, spec.leaseTransitions]);
    if (this.#observed?.record !== record) this.#observed = { record, holder: spec.holderIdentity, at: Date.now() };
    return this.#observed.at;
  }

  async #read(): Promise<V1Lease | undefined> {
    const { coordination, namespace, name } = this.#options;
    try {
      return await coordination.readNamespacedLease({ name, namespace });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** Empties holderIdentity so that followers need not wait for the lease to expire. */
  async #release(): Promise<void> {
    const { coordination, namespace, name, identity, logger } = this.#options;
    try {
      const lease = await this.#read();
      if (lease?.spec?.holderIdentity !== identity) return;
      const spec: V1LeaseSpec = { ...lease.spec, holderIdentity: undefined, leaseDurationSeconds: 1, renewTime: new V1MicroTime() };
      await coordination.replaceNamespacedLease({ name, namespace, body: { ...lease, spec } });
      logger.info({ identity }, 'released the leader Lease');
    } catch (error) {
      logger.warn({ error: describeError(error) }, 'could not release the leader Lease; followers take over when it expires');
    }
  }
}

type Attempt = 'held' | 'taken' | 'failed';

/** The attempt's result if it settles before `deadline` (a Date.now() value), 'failed' otherwise. */
async function settledBefore(attempt: Promise<Attempt>, deadline: number): Promise<Attempt> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<Attempt>((resolve) => (timer = setTimeout(() => resolve('failed'), Math.max(0, deadline - Date.now()))));
  try {
    return await Promise.race([attempt, expired]);
  } finally {
    clearTimeout(timer);
  }
}
