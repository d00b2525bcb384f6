import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { deleteInBatches } from '@shop/platform';
import type { Tx } from '../kernel/index.ts';
import type { Principal } from './principal.ts';
import type { TokenSettings } from './token-settings.ts';

const TOKEN_BYTES = 32;
/** 32 bytes in base64url, unpadded. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** Only the SHA-256 is stored: a leaked table holds no usable token. The tokens are random, so no salt or slow hash is needed. */
export function hashRefreshToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The stored hash of a presented token, or undefined when it cannot be one of ours. */
export function presentedHash(presented: string): string | undefined {
  return typeof presented === 'string' && TOKEN_SHAPE.test(presented) ? hashRefreshToken(presented) : undefined;
}

const ownerOf = (principal: Principal) =>
  principal.kind === 'customer'
    ? { customerId: principal.customerId, staffUserId: null }
    : { customerId: null, staffUserId: principal.staffUserId };

/** A new refresh token for the principal, in the given family (a rotation) or a new one (a sign-in). */
export async function issueRefreshToken(
  tx: Tx,
  principal: Principal,
  settings: TokenSettings,
  familyId: string = randomUUID(),
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBytes(TOKEN_BYTES).toString('base64url');
  const expiresAt = new Date(settings.now().getTime() + settings.refreshTokenSeconds * 1000);
  await tx.refreshToken.create({ data: { tokenHash: hashRefreshToken(token), familyId, expiresAt, ...ownerOf(principal) } });
  return { token, expiresAt };
}

/** Revokes every token of the family not yet revoked; returns how many. */
export async function revokeFamily(tx: Tx, familyId: string, settings: TokenSettings): Promise<number> {
  const { count } = await tx.refreshToken.updateMany({ where: { familyId, revokedAt: null }, data: { revokedAt: settings.now() } });
  return count;
}

/** Sign-out: revokes the presented token's family (the sign-in it belongs to). Unknown tokens are ignored; returns whether one was found. */
export async function revokeRefreshToken(tx: Tx, presented: string, settings: TokenSettings): Promise<boolean> {
  const tokenHash = presentedHash(presented);
  const found = tokenHash === undefined ? null : await tx.refreshToken.findUnique({ where: { tokenHash }, select: { familyId: true } });
  if (found === null) return false;
  await revokeFamily(tx, found.familyId, settings);
  return true;
}

/** Signs the principal out everywhere (password change, deactivation, a stolen device); returns how many tokens were revoked. */
export async function revokeAllRefreshTokens(tx: Tx, principal: Principal, settings: TokenSettings): Promise<number> {
  const { customerId, staffUserId } = ownerOf(principal);
  const owner = customerId === null ? { staffUserId } : { customerId };
  const { count } = await tx.refreshToken.updateMany({ where: { ...owner, revokedAt: null }, data: { revokedAt: settings.now() } });
  return count;
}

/** How long a sign-in's tokens are kept after the last of them expired. */
export const FINISHED_SIGN_IN_GRACE_HOURS = 24;

/**
 * Deletes the tokens of sign-ins (families) whose every token expired more than the grace period ago.
 * A sign-in's replaced tokens stay while any of its tokens can still be used, so presenting a stolen,
 * replaced token keeps revoking the sign-in for as long as that matters.
 */
export function pruneFinishedSignIns(pool: Parameters<typeof deleteInBatches>[0]): Promise<number> {
  const cutoff = 'now() - make_interval(hours => $1)';
  return deleteInBatches(
    pool,
    'refresh_tokens',
    `expires_at < ${cutoff} AND NOT EXISTS (
       SELECT 1 FROM refresh_tokens sibling WHERE sibling.family_id = refresh_tokens.family_id AND sibling.expires_at >= ${cutoff})`,
    [FINISHED_SIGN_IN_GRACE_HOURS],
  );
}
