import { createHash, randomBytes } from 'node:crypto';
import { LIMITS, notFound, requireText, type Tx } from '../kernel/index.ts';

/** A storefront access token as staff see it: never the token. */
export interface StorefrontToken {
  readonly id: bigint;
  readonly name: string;
  readonly createdAt: Date;
  /** Null when the staff user was deleted. */
  readonly createdByStaffUserId: bigint | null;
  /** Written at most about once a minute per api process (recordStorefrontTokenUse). */
  readonly lastUsedAt: Date | null;
  readonly revokedAt: Date | null;
}

/** A token the api accepts: its id and the SHA-256 it is looked up by. */
export interface ActiveStorefrontToken {
  readonly id: bigint;
  readonly tokenHash: string;
}

/** `sft_` and 32 random bytes in base64url: 256 bits, so an unsalted SHA-256 is as hard to reverse as guessing the token. */
const TOKEN_PATTERN = /^sft_[A-Za-z0-9_-]{43}$/;
/** How stale last_used_at may be: a busy token is written at most once per this per process. */
export const LAST_USED_PRECISION_MS = 60_000;

const COLUMNS = { id: true, name: true, createdAt: true, createdByStaffUserId: true, lastUsedAt: true, revokedAt: true } as const;

/** The hex SHA-256 a token is stored under; undefined for a string that is not shaped like a token (it cannot be one). */
export function storefrontTokenHash(token: string): string | undefined {
  return TOKEN_PATTERN.test(token) ? createHash('sha256').update(token).digest('hex') : undefined;
}

/** Creates a token named for the BFF that will use it; the token itself is in the answer only, never stored. */
export async function createStorefrontToken(
  tx: Tx,
  input: { name: string; staffUserId: bigint; now: Date },
): Promise<{ token: string; storefrontToken: StorefrontToken }> {
  const name = requireText('name', input.name, LIMITS.storefrontTokenName);
  const token = `sft_${randomBytes(32).toString('base64url')}`;
  const storefrontToken = await tx.storefrontToken.create({
    data: { name, tokenHash: storefrontTokenHash(token) as string, createdAt: input.now, createdByStaffUserId: input.staffUserId },
    select: COLUMNS,
  });
  return { token, storefrontToken };
}

/** Every token, revoked ones included, newest first. */
export function listStorefrontTokens(tx: Tx): Promise<StorefrontToken[]> {
  return tx.storefrontToken.findMany({ select: COLUMNS, orderBy: { id: 'desc' } });
}

/** Revokes a token for good; revoking it again keeps the first time. NOT_FOUND naming `id` for an unknown one. */
export async function revokeStorefrontToken(tx: Tx, id: bigint, now: Date): Promise<StorefrontToken> {
  await tx.storefrontToken.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: now } });
  const token = await tx.storefrontToken.findUnique({ where: { id }, select: COLUMNS });
  if (token === null) throw notFound('storefront token', id, 'id');
  return token;
}

/** The tokens not revoked: few rows, which the api keeps in memory for a few seconds. */
export function activeStorefrontTokens(tx: Tx): Promise<ActiveStorefrontToken[]> {
  return tx.storefrontToken.findMany({ where: { revokedAt: null }, select: { id: true, tokenHash: true } });
}

/** Sets last_used_at to `now` unless it is already within LAST_USED_PRECISION_MS of it (another process wrote it). */
export async function recordStorefrontTokenUse(tx: Tx, id: bigint, now: Date): Promise<void> {
  const recent = new Date(now.getTime() - LAST_USED_PRECISION_MS);
  await tx.storefrontToken.updateMany({
    where: { id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: recent } }] },
    data: { lastUsedAt: now },
  });
}
