import { createHash } from 'node:crypto';
import type { ShopManifests } from '@shop/cdk8s';
import type { StoredShop } from '../shop-resource.ts';

export interface RolloutPace {
  /** How many Shops may start rolling out a changed render per interval. */
  readonly batchSize: number;
  readonly intervalMs: number;
}

/** Five Shops a minute: an operator upgrade that changes every Shop's pods reaches 100 Shops in 20 minutes. */
export const DEFAULT_ROLLOUT_PACE: RolloutPace = { batchSize: 5, intervalMs: 60_000 };

export type Admission = { readonly admitted: true } | { readonly admitted: false; readonly retryAfterMs: number };

/**
 * Paces the Shops whose objects an upgraded operator renders differently from the same spec: without it,
 * every Shop would roll its pods in the first pass after the upgrade. A Shop is admitted when fewer than
 * batchSize Shops were admitted in the last intervalMs; a Shop admitted within the interval is admitted
 * again for free (its pass may be retried before its status records the new render). In memory: a new
 * leader starts with an empty window, at most one batch early.
 */
export class RolloutGate {
  readonly #pace: RolloutPace;
  readonly #now: () => number;
  /** When each Shop was admitted, oldest first. */
  readonly #admitted = new Map<string, number>();

  constructor(pace: RolloutPace, now: () => number = Date.now) {
    if (!(pace.batchSize >= 1 && pace.intervalMs >= 0)) throw new Error(`invalid rollout pace: ${JSON.stringify(pace)}`);
    this.#pace = pace;
    this.#now = now;
  }

  admit(key: string): Admission {
    const now = this.#now();
    for (const [admittedKey, at] of this.#admitted) {
      if (now - at < this.#pace.intervalMs) break;
      this.#admitted.delete(admittedKey);
    }
    if (this.#admitted.has(key)) return { admitted: true };
    const oldest = this.#admitted.values().next();
    if (this.#admitted.size >= this.#pace.batchSize && !oldest.done)
      return { admitted: false, retryAfterMs: oldest.value + this.#pace.intervalMs - now };
    this.#admitted.set(key, now);
    return { admitted: true };
  }
}

const hashes = new WeakMap<ShopManifests, string>();

/** A hash of the rendered objects; the render cache hands out the same frozen manifests while the spec is unchanged, so it is computed once per render. */
export function renderHash(manifests: ShopManifests): string {
  let hash = hashes.get(manifests);
  if (hash === undefined) {
    hash = createHash('sha256').update(JSON.stringify(manifests)).digest('hex').slice(0, 16);
    hashes.set(manifests, hash);
  }
  return hash;
}

/**
 * Whether the Shop's objects change only because this operator renders them differently: the status
 * describes the current generation but a different render. A changed spec is the user's and is not
 * paced; a status without a hash (a Shop an older operator reconciled) is not paced either.
 */
export function renderChangedByOperator(shop: StoredShop, hash: string): boolean {
  const status = shop.status;
  return status?.renderHash !== undefined && status.renderHash !== hash && status.observedGeneration === shop.metadata.generation;
}
