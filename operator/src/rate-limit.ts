export interface RateLimit {
  /** Sustained events per second. */
  readonly perSecond: number;
  /** Events allowed at once after a quiet period. */
  readonly burst: number;
}

/** A token bucket that hands out future tokens: `burst` at once, then `perSecond`. */
export class TokenBucket {
  readonly #limit: RateLimit;
  /** Below 0 when tokens not yet refilled are reserved. */
  #tokens: number;
  #refilledAt = Date.now();

  constructor(limit: RateLimit) {
    this.#limit = limit;
    this.#tokens = limit.burst;
  }

  /** Takes the next token and returns in how many ms it is there (0: now). */
  reserve(): number {
    const now = Date.now();
    this.#tokens = Math.min(this.#limit.burst, this.#tokens + ((now - this.#refilledAt) * this.#limit.perSecond) / 1000) - 1;
    this.#refilledAt = now;
    return this.#tokens >= 0 ? 0 : Math.ceil((-this.#tokens * 1000) / this.#limit.perSecond);
  }
}
