/** A token bucket per (policy, caller): up to `capacity` requests at once, refilled at `refillPerSecond`. */
export interface RateLimitPolicy {
  /** The endpoint key: `track`, `graphql`, `graphql:<mutation field>`, `graphql:<sign-in field>:account`, `graphql:placeOrder:session`, `bff:track`, `bff:graphql`. */
  readonly key: string;
  /** The burst ceiling: a caller idle for any time may send at most this many requests at once. */
  readonly capacity: number;
  /** Tokens added per second (may be below 1: 0.016667 is one a minute). The sustained rate allowed. */
  readonly refillPerSecond: number;
  /** A disabled policy limits nothing. */
  readonly enabled: boolean;
}

/**
 * What applies to a key with no row in rate_limit_policies. The migration seeds the same rows, so the
 * table shows what is in force; deleting a row falls back to these (docs/rate-limiting.md).
 */
export const DEFAULT_RATE_LIMIT_POLICIES: readonly RateLimitPolicy[] = [
  { key: 'track', capacity: 120, refillPerSecond: 20, enabled: true },
  { key: 'graphql', capacity: 200, refillPerSecond: 20, enabled: true },
  { key: 'graphql:registerCustomer', capacity: 5, refillPerSecond: 0.002778, enabled: true },
  { key: 'graphql:loginCustomer', capacity: 10, refillPerSecond: 0.033333, enabled: true },
  { key: 'graphql:loginStaff', capacity: 10, refillPerSecond: 0.033333, enabled: true },
  { key: 'graphql:loginCustomer:account', capacity: 10, refillPerSecond: 0.033333, enabled: true },
  { key: 'graphql:loginStaff:account', capacity: 10, refillPerSecond: 0.033333, enabled: true },
  { key: 'graphql:captureLead', capacity: 10, refillPerSecond: 0.016667, enabled: true },
  { key: 'graphql:placeOrder', capacity: 20, refillPerSecond: 0.033333, enabled: true },
  { key: 'graphql:placeOrder:session', capacity: 5, refillPerSecond: 0.016667, enabled: true },
  { key: 'bff:graphql', capacity: 2000, refillPerSecond: 200, enabled: true },
  { key: 'bff:track', capacity: 1200, refillPerSecond: 200, enabled: true },
];

/**
 * Every policy of a single mutation (`graphql:<field>`, the sign-ins' `:account` and checkout's
 * `:session` ones; the defaults are sign-up, sign-in, checkout and leads, what attackers automate):
 * while the cache is down they are kept per process instead of failing open. A `graphql:<field>` policy an operator adds is kept too.
 */
export function guardsAbuse(policy: Pick<RateLimitPolicy, 'key'>): boolean {
  return policy.key.startsWith('graphql:');
}

/** The policies in force, by key; undefined means the key is not limited. */
export interface RateLimitPolicyLookup {
  get(key: string): RateLimitPolicy | undefined;
}

/** A fixed set of policies (tests, or a process that does not read the table). */
export function staticRateLimitPolicies(policies: readonly RateLimitPolicy[]): RateLimitPolicyLookup {
  const byKey = new Map(policies.map((policy) => [policy.key, policy]));
  return { get: (key) => byKey.get(key) };
}

/** Seconds an empty bucket takes to fill: the window `w` of `capacity` requests in the RateLimit-Policy header. */
export function refillWindowSeconds(policy: Pick<RateLimitPolicy, 'capacity' | 'refillPerSecond'>): number {
  return Math.max(1, Math.ceil(policy.capacity / policy.refillPerSecond));
}

/** Why a row cannot be a policy, or undefined when it can. The table's CHECK constraints say the same. */
export function invalidPolicyReason(policy: RateLimitPolicy): string | undefined {
  if (!Number.isSafeInteger(policy.capacity) || policy.capacity < 1) return 'capacity must be a whole number above 0';
  if (!Number.isFinite(policy.refillPerSecond) || policy.refillPerSecond <= 0) return 'refill_per_second must be above 0';
  return undefined;
}
