import { describe, expect, it } from 'vitest';
import { parseRegistryDocument } from '../../src/events/registry-document.ts';

const document = (topicRow: string) =>
  [
    '| Topic | Domain | Emitted by | Partition key | Volume | Alert if | Schema |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    topicRow,
    '',
    '| Event | Emitted by | Listeners | Schema |',
    '| --- | --- | --- | --- |',
    '| `cart.item_added` | api | attribute_cart_add | [events/cart.item_added.json](events/cart.item_added.json) |',
    '### `shop.leads.created.v1`',
    '| Field | Why a consumer needs it |',
    '| --- | --- |',
    '| `lead_id` | The key. |',
    '| `source` | Routing. |',
    '### `cart.item_added`',
    '| Field | Why a consumer needs it |',
    '| --- | --- |',
    '| `lines[].sku` | Stock. |',
  ].join('\n');

const LEADS =
  '| `shop.leads.created.v1` | leads | api | `lead_id` | Low | Any consumer errors | [events/shop.leads.created.v1.json](events/shop.leads.created.v1.json) |';

describe('parseRegistryDocument', () => {
  it('reads topics with their partition keys, in-process events and each section’s fields', () => {
    const registry = parseRegistryDocument(document(LEADS), '/registry/topics.md');
    expect(registry.problems).toEqual([]);
    expect(registry.topics).toEqual(new Map([['shop.leads.created.v1', 'lead_id']]));
    expect(registry.inProcessEvents).toEqual(['cart.item_added']);
    expect(registry.fieldDocs).toEqual(
      new Map([
        ['shop.leads.created.v1', ['lead_id', 'source']],
        ['cart.item_added', ['lines[].sku']],
      ]),
    );
  });

  it('reports each malformed row with its line', () => {
    const cases = [
      [LEADS.replace('| leads ', ''), '/registry/topics.md:3: expected 7 cells, found 6'],
      [LEADS.replace('| Low ', '|  '), '/registry/topics.md:3: the Volume cell of shop.leads.created.v1 is empty'],
      [
        LEADS.replace('`lead_id`', 'lead_id'),
        '/registry/topics.md:3: the Partition key cell of shop.leads.created.v1 must be a payload field in backticks',
      ],
      [
        LEADS.replace('(events/shop.leads.created.v1.json)', '(events/leads.json)'),
        '/registry/topics.md:3: the Schema cell of shop.leads.created.v1 must be [events/shop.leads.created.v1.json](events/shop.leads.created.v1.json)',
      ],
    ];
    for (const [row = '', problem] of cases)
      expect(parseRegistryDocument(document(row), '/registry/topics.md').problems).toEqual([problem]);
  });

  it('requires exactly one topic table', () => {
    const text = document(LEADS).replace('| Alert if |', '| Alerts |');
    expect(parseRegistryDocument(text, '/registry/topics.md').problems).toEqual([
      '/registry/topics.md: expected exactly one table headed | Topic | Domain | Emitted by | Partition key | Volume | Alert if | Schema |, found 0',
    ]);
  });
});
