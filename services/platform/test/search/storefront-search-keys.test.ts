import { decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { assertSearchOnly, channelSearchToken, storefrontSearchKeys } from '../../src/search/meilisearch/storefront-search-keys.ts';
import { searchEnginesFor } from '../../src/search/search-engines.ts';

const SEARCH_ONLY_KEY = 'a-search-only-key-of-the-storefront-index-0123456789';
const KEY_UID = '6062abda-a5aa-4414-ac91-ecd7944c0f8d';

// A tenant token is a JWT Meilisearch verifies with the key it was signed with: verified here with
// jose, without a Meilisearch server (none can be run here: docs/search.md).
describe('scoped storefront search keys', () => {
  it('signs a token with the search-only key that searches one index, filtered to one channel, until it expires', async () => {
    const expiresAt = new Date('2030-01-01T00:00:00Z');
    const token = await channelSearchToken({
      searchOnlyKey: SEARCH_ONLY_KEY,
      apiKeyUid: KEY_UID,
      indexUid: 'shop_storefront',
      channelId: '7',
      expiresAt,
    });

    expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: 'JWT' });
    const { payload } = await jwtVerify(token, new TextEncoder().encode(SEARCH_ONLY_KEY), {
      algorithms: ['HS256'],
      currentDate: new Date('2029-12-31T23:59:00Z'),
    });
    expect(payload).toEqual({
      apiKeyUid: KEY_UID,
      searchRules: { shop_storefront: { filter: ['filters.channel = "7"'] } },
      exp: expiresAt.getTime() / 1000,
    });

    await expect(jwtVerify(token, new TextEncoder().encode('another-key-of-the-same-length-0123456789abcdefghij'))).rejects.toThrow(
      'signature verification failed',
    );
    await expect(
      jwtVerify(token, new TextEncoder().encode(SEARCH_ONLY_KEY), { currentDate: new Date('2030-01-01T00:00:01Z') }),
    ).rejects.toThrow('"exp" claim timestamp check failed');
  });

  it('refuses a key that can do more than search, naming the variable', () => {
    expect(() => assertSearchOnly({ uid: KEY_UID, actions: ['search'] })).not.toThrow();
    expect(() => assertSearchOnly({ uid: KEY_UID, actions: ['search', 'documents.add'] })).toThrow(
      `STOREFRONT_SEARCH_ONLY_KEY must allow only the search action; key ${KEY_UID} also allows documents.add`,
    );
  });

  it('hands out keys only when the storefront index is in Meilisearch and a search-only key is set', () => {
    const endpoint = { url: 'http://127.0.0.1:7700', apiKey: 'master' };
    expect(storefrontSearchKeys({ storefrontSearch: undefined }, 'storefront')).toBeUndefined();
    expect(storefrontSearchKeys({ storefrontSearch: { ...endpoint, searchOnlyKey: undefined } }, 'storefront')).toBeUndefined();
    expect(storefrontSearchKeys({ storefrontSearch: { ...endpoint, searchOnlyKey: SEARCH_ONLY_KEY } }, 'storefront')).toBeDefined();
  });

  it("fails a key, naming the URL, while Meilisearch cannot be asked for the key's uid", async () => {
    // Port 9 (discard) on the loopback: nothing listens there, so the connection is refused at once.
    const keys = storefrontSearchKeys(
      { storefrontSearch: { url: 'http://127.0.0.1:9', apiKey: 'master', searchOnlyKey: SEARCH_ONLY_KEY } },
      'storefront',
    );
    await expect(keys?.forChannel('7', new Date())).rejects.toThrow('http://127.0.0.1:9');
  });
});

describe('the engine of each index', () => {
  // No database is touched: the engines are only built.
  const db = {} as Parameters<typeof searchEnginesFor>[1];

  it('is PostgreSQL for both without a search URL, and Meilisearch for the index whose URL is set', () => {
    const embedded = searchEnginesFor({ adminSearch: undefined, storefrontSearch: undefined }, db);
    expect(embedded.admin).toBe(embedded.storefront);
    const split = searchEnginesFor(
      { adminSearch: undefined, storefrontSearch: { url: 'http://127.0.0.1:7700', apiKey: undefined, searchOnlyKey: undefined } },
      db,
    );
    expect(split.admin).not.toBe(split.storefront);
    expect(
      searchEnginesFor(
        { adminSearch: undefined, storefrontSearch: { url: 'http://127.0.0.1:7700', apiKey: undefined, searchOnlyKey: undefined } },
        db,
      ).storefront,
    ).toBe(split.storefront);
  });

  it('answers an unreachable Meilisearch with an error naming its URL', async () => {
    // Port 9 (discard) on the loopback: nothing listens there, so the connection is refused at once.
    const { storefront } = searchEnginesFor(
      { adminSearch: undefined, storefrontSearch: { url: 'http://127.0.0.1:9', apiKey: undefined, searchOnlyKey: undefined } },
      db,
    );
    await expect(storefront.search('storefront', { text: 'mug', limit: 10, offset: 0 })).rejects.toThrow('http://127.0.0.1:9');
  });
});
