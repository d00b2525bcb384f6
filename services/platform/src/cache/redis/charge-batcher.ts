import type { Redis } from 'ioredis';
import type { BucketCharge, ChargeAndClaimResult, Claims } from '../cache.ts';
import { CHARGE_AND_CLAIM_LUA, RedisScript } from './bucket-scripts.ts';

const CHARGE_AND_CLAIM = new RedisScript(CHARGE_AND_CLAIM_LUA);
/** Charges in one script at most: Redis runs nothing else while a script runs. */
const MAX_BATCH = 128;
/** A placeholder bucket key when there is no bucket to charge (the script does not touch it). */
const NO_BUCKET = 'no-bucket';

type ChargeReply = [number, string, number, number, number[]];

interface Pending {
  /** The bucket, then the claimed keys. */
  readonly keys: readonly string[];
  /** Capacity (0: no bucket), refill per second, cost, claim time to live in ms. */
  readonly args: readonly [number, number, number, number];
  readonly resolve: (reply: ChargeReply) => void;
  readonly reject: (error: unknown) => void;
}

/** The charges sent together, with one timer for all of them from when the first was queued. */
interface Batch {
  readonly entries: Pending[];
  timer: NodeJS.Timeout | undefined;
  /** Answered, failed or timed out: later replies are ignored. */
  settled: boolean;
}

/**
 * RedisCache.chargeAndClaim: sends concurrent charges together in one script call (CHARGE_AND_CLAIM_LUA: one
 * write to Redis, one read of the replies, one script run), with one call in flight at a time: the charges
 * made while it is out go together in the next, as soon as it is answered; when none is out, those of the
 * current turn of the event loop go at its end. Under load that is one Redis round trip for many requests
 * instead of one each. Every charge is answered or failed within `timeoutMs` of being queued, waiting
 * included (a slow call is given up, and the next one goes). A script Redis does not know (restart, SCRIPT
 * FLUSH, failover) is sent again with EVAL, which caches it.
 */
export class ChargeBatcher {
  readonly #client: Redis;
  readonly #timeoutMs: number;
  /** Batches not sent yet, oldest first; charges join the last one. */
  #waiting: Batch[] = [];
  #inFlight: Batch | undefined;

  constructor(client: Redis, timeoutMs: number) {
    this.#client = client;
    this.#timeoutMs = timeoutMs;
  }

  async run(charge: BucketCharge | undefined, claims: Claims): Promise<ChargeAndClaimResult> {
    const keys = [charge?.key ?? NO_BUCKET, ...claims.keys];
    const args = [
      charge?.limit.capacity ?? 0,
      charge?.limit.refillPerSecond ?? 0,
      charge?.cost ?? 0,
      Math.round(claims.ttlSeconds * 1000),
    ] as const;
    const [allowed, tokens, retryAfterMs, fullInMs, claimed] = await this.#queue(keys, args);
    const taken = charge === undefined ? undefined : { allowed: allowed === 1, tokens: Number(tokens), retryAfterMs, fullInMs };
    return { taken, claimed: claimed.map((value) => value === 1) };
  }

  #queue(keys: readonly string[], args: Pending['args']): Promise<ChargeReply> {
    return new Promise((resolve, reject) => {
      let batch = this.#waiting.at(-1);
      if (batch === undefined || batch.entries.length >= MAX_BATCH) {
        const created: Batch = { entries: [], timer: undefined, settled: false };
        created.timer = setTimeout(() => this.#timedOut(created), this.#timeoutMs);
        this.#waiting.push((batch = created));
        if (this.#inFlight === undefined && this.#waiting.length === 1) setImmediate(() => this.#send());
      }
      batch.entries.push({ keys, args, resolve, reject });
    });
  }

  #send(): void {
    if (this.#inFlight !== undefined) return;
    const batch = this.#waiting.shift();
    if (batch === undefined) return;
    this.#inFlight = batch;
    const keys: string[] = [];
    const args: (number | string)[] = [batch.entries.length];
    for (const entry of batch.entries) {
      keys.push(...entry.keys);
      args.push(...entry.args, entry.keys.length - 1);
    }
    const answer = (replies: unknown) =>
      this.#settle(batch, (entry, index) => {
        const reply = (replies as ChargeReply[])[index];
        if (reply === undefined || reply[0] === -1) entry.reject(new Error(`the charge failed in Redis: ${String(reply?.[1])}`));
        else entry.resolve(reply);
      });
    const fail = (error: unknown) => this.#settle(batch, (entry) => entry.reject(error));
    CHARGE_AND_CLAIM.run(this.#client, keys, args).then(answer, fail);
  }

  #settle(batch: Batch, answer: (entry: Pending, index: number) => void): void {
    if (!batch.settled) {
      batch.settled = true;
      clearTimeout(batch.timer);
      batch.entries.forEach(answer);
    }
    if (this.#inFlight === batch) {
      this.#inFlight = undefined;
      this.#send();
    }
  }

  #timedOut(batch: Batch): void {
    const waiting = this.#waiting.indexOf(batch);
    if (waiting !== -1) this.#waiting.splice(waiting, 1);
    const error = new Error(`the cache did not answer in ${this.#timeoutMs} ms`);
    this.#settle(batch, (entry) => entry.reject(error));
  }
}
