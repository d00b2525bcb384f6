import { verifyAccessToken, type AccessTokenRejection, type TokenSettings } from '@shop/domain/auth';
import { DomainError } from '@shop/domain/kernel';

/** Who sent a beacon, as tracking_events records it. */
export interface Viewer {
  readonly userId: bigint | null;
  readonly customerGroupId: bigint | null;
  readonly isAuthenticated: boolean;
}

/** Why a token that came with a beacon was not used: the event is recorded anonymous instead. */
export type IgnoredTokenReason = AccessTokenRejection | 'not_bearer' | 'not_customer';

export const ANONYMOUS: Viewer = { userId: null, customerGroupId: null, isAuthenticated: false };

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

/**
 * The viewer an Authorization header proves. A beacon is never refused for its token: a missing one
 * is anonymous, a bad one (expired, forged, malformed, not a Bearer token) is anonymous and reported
 * through `ignored`. Staff tokens are anonymous too: user_id holds customer ids, the ids attribution
 * matches against carts and orders, and a staff id there would be mistaken for a customer's.
 */
export async function viewerOf(
  authorization: string | undefined,
  settings: TokenSettings,
  ignored: (reason: IgnoredTokenReason) => void,
): Promise<Viewer> {
  if (authorization === undefined || authorization.trim() === '') return ANONYMOUS;
  const token = BEARER.exec(authorization)?.[1];
  if (token === undefined) {
    ignored('not_bearer');
    return ANONYMOUS;
  }
  try {
    const principal = await verifyAccessToken(token, settings);
    if (principal.kind !== 'customer') {
      ignored('not_customer');
      return ANONYMOUS;
    }
    return { userId: principal.customerId, customerGroupId: principal.customerGroupId, isAuthenticated: true };
  } catch (error) {
    const reason = error instanceof DomainError ? (error.details.reason as AccessTokenRejection | undefined) : undefined;
    ignored(reason ?? 'malformed');
    return ANONYMOUS;
  }
}
