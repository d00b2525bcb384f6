import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestPlatform, type TestPlatform } from '../../../../test/support/test-platform.ts';
import { createStaffUser } from '../../src/auth/staff.ts';
import {
  activeStorefrontTokens,
  createStorefrontToken,
  listStorefrontTokens,
  recordStorefrontTokenUse,
  revokeStorefrontToken,
  storefrontTokenHash,
} from '../../src/storefront-tokens/storefront-tokens.ts';

let test: TestPlatform;
let staffUserId: bigint;
const now = new Date('2026-11-25T11:00:00.000Z');
const later = (ms: number) => new Date(now.getTime() + ms);

beforeAll(async () => {
  test = await openTestPlatform('storefront_tokens_domain');
  const staff = await test.platform.database.prisma.$transaction((tx) =>
    createStaffUser(tx, { email: 'tokens@example.com', password: 'a long enough password', name: 'Issuer' }),
  );
  staffUserId = staff.id;
});
afterAll(async () => test?.close());

const prisma = () => test.platform.database.prisma;

describe('storefront tokens', () => {
  it('are 256 random bits, looked up by their SHA-256, and listed without it', async () => {
    const { token, storefrontToken } = await createStorefrontToken(prisma(), { name: ' web ', staffUserId, now });
    expect(token).toMatch(/^sft_[A-Za-z0-9_-]{43}$/);
    expect(storefrontToken).toEqual({
      id: storefrontToken.id,
      name: 'web',
      createdAt: now,
      createdByStaffUserId: staffUserId,
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(storefrontTokenHash(token)).toBe(createHash('sha256').update(token).digest('hex'));
    expect(storefrontTokenHash('sft_short')).toBeUndefined();
    expect(await activeStorefrontTokens(prisma())).toContainEqual({ id: storefrontToken.id, tokenHash: storefrontTokenHash(token) });
    expect(await listStorefrontTokens(prisma())).toContainEqual(storefrontToken);
  });

  it('record their last use at most once a minute, whichever process asks', async () => {
    const { storefrontToken } = await createStorefrontToken(prisma(), { name: 'busy', staffUserId, now });
    const lastUsed = async () => (await listStorefrontTokens(prisma())).find((listed) => listed.id === storefrontToken.id)?.lastUsedAt;
    await recordStorefrontTokenUse(prisma(), storefrontToken.id, now);
    await recordStorefrontTokenUse(prisma(), storefrontToken.id, later(59_000));
    expect(await lastUsed()).toEqual(now);
    await recordStorefrontTokenUse(prisma(), storefrontToken.id, later(61_000));
    expect(await lastUsed()).toEqual(later(61_000));
  });

  it('are revoked for good: no longer active, the first revocation time kept, an unknown id NOT_FOUND', async () => {
    const { storefrontToken } = await createStorefrontToken(prisma(), { name: 'old', staffUserId, now });
    expect((await revokeStorefrontToken(prisma(), storefrontToken.id, later(1_000))).revokedAt).toEqual(later(1_000));
    expect((await revokeStorefrontToken(prisma(), storefrontToken.id, later(2_000))).revokedAt).toEqual(later(1_000));
    expect((await activeStorefrontTokens(prisma())).map((active) => active.id)).not.toContain(storefrontToken.id);
    await expect(revokeStorefrontToken(prisma(), 999_999n, now)).rejects.toMatchObject({ code: 'NOT_FOUND', details: { field: 'id' } });
  });
});
