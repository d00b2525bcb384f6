import type { Key } from 'meilisearch';
import type { Config } from '../../config/config.ts';
import { meiliFilter, meiliIndexUid } from './meilisearch-mapping.ts';

/** What a BFF needs to query Meilisearch itself: the engine, the index, and a token that only searches it within one channel. */
export interface ScopedSearchKey {
  readonly host: string;
  readonly indexUid: string;
  readonly token: string;
  readonly expiresAt: Date;
}

export interface StorefrontSearchKeys {
  forChannel(channelId: string, now: Date): Promise<ScopedSearchKey>;
}

/** How long a scoped key lasts: a BFF asks again before then. */
export const SCOPED_KEY_TTL_SECONDS = 3600;

/**
 * A tenant token: signed with the search-only key, it lets its holder search `indexUid` and nothing
 * else, with the channel filter added to every search, until it expires. Meilisearch checks it
 * against the key of uid `apiKeyUid`, which must still exist and still allow searching the index.
 */
export async function channelSearchToken(options: {
  searchOnlyKey: string;
  apiKeyUid: string;
  indexUid: string;
  channelId: string;
  expiresAt: Date;
}): Promise<string> {
  const { searchOnlyKey, apiKeyUid, indexUid, channelId, expiresAt } = options;
  // Loaded at the first token: an api without a search-only key never loads the client library.
  const { generateTenantToken } = await import('meilisearch/token');
  return generateTenantToken({
    apiKey: searchOnlyKey,
    apiKeyUid,
    searchRules: { [indexUid]: { filter: meiliFilter({ channel: channelId }) } },
    expiresAt,
  });
}

/** Refuses a key that can do more than search: a tenant token grants what its key grants, so the key must be search-only. */
export function assertSearchOnly(key: Pick<Key, 'actions' | 'uid'>): void {
  const beyond = key.actions.filter((action) => action !== 'search');
  if (beyond.length > 0)
    throw new Error(`STOREFRONT_SEARCH_ONLY_KEY must allow only the search action; key ${key.uid} also allows ${beyond.join(', ')}`);
}

/**
 * Scoped keys for BFFs when the storefront index is in Meilisearch and STOREFRONT_SEARCH_ONLY_KEY is
 * set; undefined otherwise. The key's uid is asked of Meilisearch once (with STOREFRONT_SEARCH_API_KEY), and the client library loaded then.
 */
export function storefrontSearchKeys(config: Pick<Config, 'storefrontSearch'>, indexName: string): StorefrontSearchKeys | undefined {
  const indexUid = meiliIndexUid(indexName);
  const search = config.storefrontSearch;
  const searchOnlyKey = search?.searchOnlyKey;
  if (search === undefined || searchOnlyKey === undefined) return undefined;
  let apiKeyUid: Promise<string> | undefined;
  const lookUp = () => {
    const uid = (async () => {
      const { Meilisearch } = await import('meilisearch');
      const key = await new Meilisearch({ host: search.url, ...(search.apiKey === undefined ? {} : { apiKey: search.apiKey }) }).getKey(
        searchOnlyKey,
      );
      assertSearchOnly(key);
      return key.uid;
    })();
    // Asked again at the next request after a failure (Meilisearch down, key not created yet).
    uid.catch(() => (apiKeyUid = undefined));
    return uid;
  };
  const uidOfKey = () => (apiKeyUid ??= lookUp());
  return {
    async forChannel(channelId, now) {
      const expiresAt = new Date(now.getTime() + SCOPED_KEY_TTL_SECONDS * 1000);
      const token = await channelSearchToken({ searchOnlyKey, apiKeyUid: await uidOfKey(), indexUid, channelId, expiresAt });
      return { host: search.url, indexUid, token, expiresAt };
    },
  };
}
