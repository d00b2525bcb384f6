import { buildSchema, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { checkQueryLimits } from '../src/graphql/query-limits.ts';

const schema = buildSchema(`
  type Item { id: ID! child: Item }
  type Query { items(first: Int = 10): [Item!]! }
`);
const LIMITS = { maxCost: 5_000, introspection: true };

// One parsed document asked again with other variables, as mercurius hands its cached parse to every request.
const document = parse('query Items($n: Int = 5, $deep: Boolean! = false) { items(first: $n) { id child @include(if: $deep) { id } } }');
const costWith = (variables?: Record<string, unknown>) => checkQueryLimits({ schema, document, variables, operationName: undefined }, LIMITS);

describe('the cost of a document asked again', () => {
  it('follows first from the variables each time', () => {
    expect(costWith({ n: 2 })).toBe(1 + 2 * 0);
    expect(costWith({ n: 2, deep: true })).toBe(1 + 2 * 1);
    expect(costWith({ n: 40, deep: true })).toBe(1 + 40 * 1);
    expect(costWith({ n: 2, deep: true })).toBe(3);
  });

  it('uses the default of a variable left out, and not for one given as null', () => {
    expect(costWith({ deep: true })).toBe(1 + 5 * 1);
    expect(costWith({ n: null, deep: true })).toBe(1 + 1 * 1);
    expect(costWith({ deep: true })).toBe(6);
  });

  it('follows @include and @skip from the variables', () => {
    expect(costWith({ n: 3, deep: false })).toBe(1);
    expect(costWith({ n: 3, deep: true })).toBe(4);
  });

  it('still checks every request\'s variables for NUL, though the document was surveyed before', () => {
    expect(costWith({ n: 3 })).toBe(1);
    expect(() => checkQueryLimits({ schema, document, variables: { n: 3, note: 'a\u0000b' }, operationName: undefined }, LIMITS)).toThrow('text must not contain the NUL character (U+0000)');
  });

  it('keeps answering right after more distinct variables than it remembers', () => {
    for (let n = 1; n <= 100; n += 1) expect(costWith({ n, deep: true })).toBe(1 + n);
    expect(costWith({ n: 7, deep: true })).toBe(8);
  });
});
