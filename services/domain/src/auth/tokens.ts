import type { PrismaClient } from '@shop/platform';
import { DomainError, type Tx } from '../kernel/index.ts';
import { signAccessToken } from './access-tokens.ts';
import { customerPrincipal, staffPrincipal, type Principal } from './principal.ts';
import { issueRefreshToken, presentedHash, revokeFamily } from './refresh-tokens.ts';
import type { TokenSettings } from './token-settings.ts';

export interface TokenPair {
  readonly accessToken: string;
  readonly accessTokenExpiresAt: Date;
  readonly refreshToken: string;
  readonly refreshTokenExpiresAt: Date;
}

export type RefreshRejection = 'unknown' | 'revoked' | 'reused' | 'expired' | 'account_disabled';

const MESSAGES: Readonly<Record<RefreshRejection, string>> = {
  unknown: 'refresh token is not valid',
  revoked: 'refresh token was revoked',
  reused: 'refresh token was already used; every session of this sign-in has been revoked',
  expired: 'refresh token expired',
  account_disabled: 'the account can no longer sign in',
};

/** After a successful sign-in: an access token and the first refresh token of a new family. */
export async function issueTokens(tx: Tx, principal: Principal, settings: TokenSettings): Promise<TokenPair> {
  const refresh = await issueRefreshToken(tx, principal, settings);
  const access = await signAccessToken(principal, settings);
  return {
    accessToken: access.token,
    accessTokenExpiresAt: access.expiresAt,
    refreshToken: refresh.token,
    refreshTokenExpiresAt: refresh.expiresAt,
  };
}

type Rotation =
  { readonly principal: Principal; readonly refresh: { token: string; expiresAt: Date } } | { readonly rejected: RefreshRejection };

/**
 * Rotation: the presented token is marked replaced and a new one of the same family is issued,
 * with a fresh lifetime; the principal is read again, so a new customer group applies now. Presenting a
 * replaced token means two parties hold the family (one of them stole it): the whole family is revoked.
 *
 * Takes the client, not a transaction, because it commits on its own: a revocation must persist
 * even though the call then throws UNAUTHENTICATED (details.reason is a RefreshRejection).
 */
export async function refreshTokens(
  prisma: PrismaClient,
  presented: string,
  settings: TokenSettings,
): Promise<TokenPair & { readonly principal: Principal }> {
  const outcome = await prisma.$transaction((tx) => rotate(tx, presented, settings));
  if ('rejected' in outcome) throw new DomainError('UNAUTHENTICATED', MESSAGES[outcome.rejected], { reason: outcome.rejected });
  const access = await signAccessToken(outcome.principal, settings);
  return {
    principal: outcome.principal,
    accessToken: access.token,
    accessTokenExpiresAt: access.expiresAt,
    refreshToken: outcome.refresh.token,
    refreshTokenExpiresAt: outcome.refresh.expiresAt,
  };
}

async function rotate(tx: Tx, presented: string, settings: TokenSettings): Promise<Rotation> {
  const tokenHash = presentedHash(presented);
  const row =
    tokenHash === undefined
      ? null
      : await tx.refreshToken.findUnique({
          where: { tokenHash },
          include: {
            customer: { select: { id: true, channelId: true, customerGroupId: true } },
            staffUser: { select: { id: true, active: true } },
          },
        });
  if (row === null) return { rejected: 'unknown' };
  if (row.revokedAt !== null) return { rejected: 'revoked' };
  if (row.replacedAt !== null) return revoking(tx, row.familyId, 'reused', settings);
  if (row.expiresAt <= settings.now()) return { rejected: 'expired' };

  let principal: Principal | undefined;
  if (row.customer !== null) principal = customerPrincipal(row.customer);
  else if (row.staffUser?.active === true) principal = staffPrincipal(row.staffUser);
  if (principal === undefined) return revoking(tx, row.familyId, 'account_disabled', settings);

  // Conditional on still being current: of two concurrent refreshes with one token, the second
  // waits for the first to commit, matches nothing, and is treated as the reuse it is.
  const claimed = await tx.refreshToken.updateMany({
    where: { id: row.id, replacedAt: null, revokedAt: null },
    data: { replacedAt: settings.now() },
  });
  if (claimed.count === 0) return revoking(tx, row.familyId, 'reused', settings);
  return { principal, refresh: await issueRefreshToken(tx, principal, settings, row.familyId) };
}

async function revoking(tx: Tx, familyId: string, rejected: RefreshRejection, settings: TokenSettings): Promise<Rotation> {
  await revokeFamily(tx, familyId, settings);
  return { rejected };
}
