// What every SearchEngine adapter must do, as one suite each adapter's test file runs against a real engine.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { SearchDocument, SearchEngine } from '../../src/search/search-engine.ts';

const doc = (id: string, title: string, body = '', filters: Record<string, string[]> = {}): SearchDocument => ({
  id,
  title,
  body,
  filters,
  data: { id, title },
});

/** A fresh index name per test: the tests share one engine. */
const freshIndex = () => `contract_${randomUUID().slice(0, 8)}`;

async function* batchesOf(...batches: SearchDocument[][]): AsyncIterable<SearchDocument[]> {
  yield* batches;
}

export function searchEngineContract(adapter: string, engine: () => SearchEngine): void {
  describe(`SearchEngine contract: ${adapter}`, () => {
    const ids = async (indexName: string, text: string, filters?: Record<string, string>) =>
      (await engine().search(indexName, { text, filters, limit: 100, offset: 0 })).hits.map((hit) => hit.id);

    it('finds documents by whole words and word prefixes, in title or body, and returns their data', async () => {
      const index = freshIndex();
      await engine().index(index, [doc('1', 'Rain jacket', 'Waterproof shell, SKU JK-100'), doc('2', 'Wool socks', 'Warm, for hiking')]);

      expect(await ids(index, 'jacket')).toEqual(['1']);
      expect(await ids(index, 'jack')).toEqual(['1']);
      expect(await ids(index, 'HIKING')).toEqual(['2']);
      expect(await ids(index, 'jk-100')).toEqual(['1']);
      expect(await ids(index, 'jacket socks')).toEqual([]);
      expect((await engine().search(index, { text: 'wool', limit: 10, offset: 0 })).hits).toEqual([
        { id: '2', data: { id: '2', title: 'Wool socks' } },
      ]);
    });

    it('splits emails and hyphenated numbers into findable words', async () => {
      const index = freshIndex();
      await engine().index(index, [doc('o1', 'SO-2026-009001', 'jane.doe@example.com')]);
      expect(await ids(index, 'SO-2026-009001')).toEqual(['o1']);
      expect(await ids(index, '009001')).toEqual(['o1']);
      expect(await ids(index, 'jane.doe@example.com')).toEqual(['o1']);
      expect(await ids(index, 'example')).toEqual(['o1']);
    });

    it('ranks a title match above a body match', async () => {
      const index = freshIndex();
      await engine().index(index, [doc('body', 'Socks', 'goes with any boots'), doc('title', 'Hiking boots', 'leather')]);
      expect(await ids(index, 'boots')).toEqual(['title', 'body']);
    });

    it('narrows by every filter given, matching one of a multi-valued attribute', async () => {
      const index = freshIndex();
      await engine().index(index, [
        doc('a', 'Red shirt', '', { kind: ['product'], channel: ['1', '2'] }),
        doc('b', 'Red order', '', { kind: ['order'], channel: ['2'] }),
        doc('c', 'Red cap', '', { kind: ['product'], channel: ['3'] }),
      ]);
      expect((await ids(index, 'red', { kind: 'product' })).sort()).toEqual(['a', 'c']);
      expect((await ids(index, 'red', { channel: '2' })).sort()).toEqual(['a', 'b']);
      expect(await ids(index, 'red', { kind: 'product', channel: '2' })).toEqual(['a']);
      expect(await ids(index, '', { channel: '3' })).toEqual(['c']);
      expect(await ids(index, 'red', { kind: 'customer' })).toEqual([]);
    });

    it('pages through matches with the total of all of them, also past the last page', async () => {
      const index = freshIndex();
      await engine().index(
        index,
        ['1', '2', '3', '4', '5'].map((id) => doc(id, `Candle ${id}`)),
      );
      const page = (offset: number) => engine().search(index, { text: 'candle', limit: 2, offset });
      const pages = await Promise.all([page(0), page(2), page(4), page(6)]);
      expect(pages.map((result) => result.total)).toEqual([5, 5, 5, 5]);
      expect(pages.map((result) => result.hits.length)).toEqual([2, 2, 1, 0]);
      expect(new Set(pages.flatMap((result) => result.hits.map((hit) => hit.id))).size).toBe(5);
      expect(await engine().search(index, { text: 'lamp', limit: 2, offset: 2 })).toEqual({ hits: [], total: 0 });
    });

    it('replaces a document indexed again under its id, and deletes by id', async () => {
      const index = freshIndex();
      await engine().index(index, [doc('1', 'Old name'), doc('2', 'Other')]);
      await engine().index(index, [doc('1', 'New name')]);
      expect(await ids(index, 'old')).toEqual([]);
      expect(await ids(index, 'new')).toEqual(['1']);

      await engine().delete(index, ['1', 'missing']);
      await engine().delete(index, ['1']);
      expect(await ids(index, '')).toEqual(['2']);
    });

    it('keeps the last of several documents with one id in one call', async () => {
      const index = freshIndex();
      await engine().index(index, [doc('1', 'First'), doc('1', 'Second')]);
      expect(await ids(index, 'second')).toEqual(['1']);
      expect(await ids(index, 'first')).toEqual([]);
    });

    it('keeps indexes apart', async () => {
      const [one, two] = [freshIndex(), freshIndex()];
      await engine().index(one, [doc('1', 'Lamp')]);
      await engine().index(two, [doc('1', 'Table')]);
      expect(await ids(one, 'table')).toEqual([]);
      await engine().delete(two, ['1']);
      expect(await ids(one, 'lamp')).toEqual(['1']);
    });

    it('rebuilds an index from batches, dropping documents no batch holds', async () => {
      const index = freshIndex();
      await engine().index(index, [doc('gone', 'Stale lamp'), doc('kept', 'Old chair')]);
      await engine().rebuild(index, batchesOf([doc('kept', 'New chair')], [doc('added', 'Desk lamp')]));
      expect((await ids(index, '')).sort()).toEqual(['added', 'kept']);
      expect(await ids(index, 'chair')).toEqual(['kept']);
      expect(await ids(index, 'old')).toEqual([]);
    });

    it('tells when an index last took a document, and nothing for an empty one', async () => {
      const index = freshIndex();
      expect(await engine().lastIndexedAt(index)).toBeUndefined();
      const before = Date.now();
      await engine().index(index, [doc('1', 'Lamp')]);
      const last = await engine().lastIndexedAt(index);
      // The engine's clock, not this process's: allow for a little skew.
      expect(Math.abs((last?.getTime() ?? 0) - before)).toBeLessThan(5_000);
    });
  });
}
