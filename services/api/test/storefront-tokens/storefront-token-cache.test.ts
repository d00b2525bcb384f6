import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createStaffUser } from '@shop/domain/auth';
import { createStorefrontToken, revokeStorefrontToken } from '@shop/domain/storefront-tokens';
import { createLogger } from '@shop/platform';
import { openTestPlatform, type TestPlatform } from '../../../../test/support/test-platform.ts';
import { StorefrontTokens } from '../../src/storefront-tokens/token-cache.ts';

// The api process's cache of storefront tokens over a real database, changed behind its back as
// another api process would change it. The intervals are shortened; the defaults are 10 s and 1 s.

let test: TestPlatform;
let staffUserId: bigint;
const logger = createLogger({ level: 'ERROR', service: 'test' });

beforeAll(async () => {
  test = await openTestPlatform('storefront_token_cache');
  staffUserId = (
    await test.platform.database.prisma.$transaction((tx) =>
      createStaffUser(tx, { email: 'cache@example.com', password: 'a long enough password', name: 'Cache' }),
    )
  ).id;
});
afterAll(async () => test?.close());

const prisma = () => test.platform.database.prisma;
const create = (name: string) => createStorefrontToken(prisma(), { name, staffUserId, now: new Date() });

describe('StorefrontTokens', () => {
  it('accepts a token another process created at its first request, waiting for one read of the table', async () => {
    const cache = new StorefrontTokens(prisma(), logger, { ttlMs: 60_000, unknownReloadMs: 200 });
    expect(await cache.verify((await create('first')).token)).toBeDefined();
    const { token, storefrontToken } = await create('second');
    expect(await cache.verify(token)).toEqual({
      id: storefrontToken.id,
      bucketKey: expect.stringMatching(/^storefront-token:[0-9a-f]{16}$/),
    });
    expect(await cache.verify(`sft_${'0'.repeat(43)}`)).toBeUndefined();
    await cache.close();
  });

  it('stops accepting a token another process revoked once its TTL has passed, and one revoked here at once', async () => {
    // A TTL of 0: every check comes after it has passed.
    const cache = new StorefrontTokens(prisma(), logger, { ttlMs: 0, unknownReloadMs: 50 });
    const elsewhere = await create('revoked elsewhere');
    expect(await cache.verify(elsewhere.token)).toBeDefined();
    await revokeStorefrontToken(prisma(), elsewhere.storefrontToken.id, new Date());
    // Past the TTL a known token does not wait for the read: this check is answered from the last one, and starts the next.
    expect(await cache.verify(elsewhere.token)).toBeDefined();
    await vi.waitFor(async () => expect(await cache.verify(elsewhere.token)).toBeUndefined(), { timeout: 5_000 });

    const here = await create('revoked here');
    expect(await cache.verify(here.token)).toBeDefined();
    await revokeStorefrontToken(prisma(), here.storefrontToken.id, new Date());
    cache.forget(here.storefrontToken.id);
    expect(await cache.verify(here.token)).toBeUndefined();
    await cache.close();
  });
});
