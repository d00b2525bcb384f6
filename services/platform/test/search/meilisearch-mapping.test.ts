import { describe, expect, it } from 'vitest';
import {
  MAX_TOTAL_HITS,
  meiliFilter,
  meiliIndexSettings,
  meiliIndexUid,
  meiliKey,
  toMeiliDocument,
  toSearchHit,
} from '../../src/search/meilisearch/meilisearch-mapping.ts';

// What the Meilisearch adapter sends, checked without a Meilisearch server (none can be run here: docs/search.md).
describe('the Meilisearch mapping', () => {
  it("keys documents within Meilisearch's primary-key alphabet, one key per id", () => {
    const ids = ['order:12', 'customer:9', 'product:12', '12', 'ünïcødé/ id'];
    const keys = ids.map(meiliKey);
    for (const key of keys) expect(key).toMatch(/^[A-Za-z0-9_-]{1,511}$/);
    expect(new Set(keys).size).toBe(ids.length);
    expect(keys.map((key) => Buffer.from(key, 'base64url').toString('utf8'))).toEqual(ids);
  });

  it('stores the title, body, filters and data, and the write time to sort on', () => {
    const document = {
      id: 'order:12',
      title: 'SO-1',
      body: 'ada@example.com',
      filters: { kind: ['order'], channel: ['1'] },
      data: { kind: 'order', id: '12' },
    };
    const stored = toMeiliDocument(document, new Date('2026-11-25T10:00:00Z'));
    expect(stored).toEqual({ key: meiliKey('order:12'), ...document, indexedAt: Date.parse('2026-11-25T10:00:00Z') });
    expect(toSearchHit(stored)).toEqual({ id: 'order:12', data: { kind: 'order', id: '12' } });
  });

  it('ranks the title above the body, filters under filters.*, and counts totals as deep as a page may go', () => {
    expect(meiliIndexSettings()).toEqual({
      searchableAttributes: ['title', 'body'],
      filterableAttributes: ['filters'],
      sortableAttributes: ['indexedAt'],
      displayedAttributes: ['id', 'data', 'indexedAt'],
      pagination: { maxTotalHits: MAX_TOTAL_HITS },
    });
    expect(MAX_TOTAL_HITS).toBe(10_000 + 100);
    expect(meiliIndexUid('storefront')).toBe('shop_storefront');
  });

  it('turns each filter into one quoted equality, escaping quotes and backslashes', () => {
    expect(meiliFilter(undefined)).toEqual([]);
    expect(meiliFilter({ kind: 'order', channel: '1' })).toEqual(['filters.kind = "order"', 'filters.channel = "1"']);
    expect(meiliFilter({ status: 'say "hi" \\ bye' })).toEqual(['filters.status = "say \\"hi\\" \\\\ bye"']);
    expect(() => meiliFilter({ 'channel OR 1': 'x' })).toThrow('search filter names are lower-case words; got "channel OR 1"');
  });
});
