import { refillWindowSeconds, type RateLimitDecision, type RateLimitPolicy } from '@shop/platform';

/** A Structured Field String (RFC 9651): quoted, with `"` and `\` escaped. */
function sfString(value: string): string {
  return `"${value.replace(/[\\"]/g, (char) => `\\${char}`)}"`;
}

/**
 * A RateLimit-Policy item (draft-ietf-httpapi-ratelimit-headers-11): the burst capacity as the quota `q`, and
 * as the window `w` the seconds an empty bucket takes to refill, so q/w is the sustained rate.
 */
export function rateLimitPolicyItem(policy: RateLimitPolicy): string {
  return `${sfString(policy.key)};q=${policy.capacity};w=${refillWindowSeconds(policy)}`;
}

/**
 * A RateLimit item: `r` whole requests left. `t` is, when allowed, the seconds until the bucket is full again,
 * and when limited, the seconds until the next request is allowed, the same as Retry-After (which must not
 * point before the end of the window).
 */
export function rateLimitItem(decision: Required<RateLimitDecision>): string {
  const t = decision.allowed ? decision.resetSeconds : decision.retryAfterSeconds;
  return `${sfString(decision.policy.key)};r=${decision.remaining};t=${t}`;
}
