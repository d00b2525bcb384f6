import { buildSchema, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { checkQueryLimits, MAX_ROOT_FIELDS } from '../../src/graphql/query-limits.ts';
import { DEFAULT_PAGE_SIZE } from '../../src/graphql/ids.ts';

const schema = buildSchema(`
  type Item { id: ID! child: Item }
  type Query { items(first: Int = 10): [Item!]! rows(first: Int): [Item!]! one: Item }
`);
const LIMITS = { maxCost: 5_000, introspection: true };

// One parsed document asked again with other variables, as mercurius hands its cached parse to every request.
const document = parse('query Items($n: Int = 5, $deep: Boolean! = false) { items(first: $n) { id child @include(if: $deep) { id } } }');
const costWith = (variables?: Record<string, unknown>) =>
  checkQueryLimits({ schema, document, variables, operationName: undefined }, LIMITS);

describe('the cost of a document asked again', () => {
  it('follows first from the variables each time', () => {
    expect(costWith({ n: 2 })).toBe(1 + 2 * 0);
    expect(costWith({ n: 2, deep: true })).toBe(1 + 2 * 1);
    expect(costWith({ n: 40, deep: true })).toBe(1 + 40 * 1);
    expect(costWith({ n: 2, deep: true })).toBe(3);
  });

  it("uses the default of a variable left out, and for one given as null the field's default page, which its resolver answers", () => {
    expect(costWith({ deep: true })).toBe(1 + 5 * 1);
    expect(costWith({ n: null, deep: true })).toBe(1 + 10 * 1);
    expect(costWith({ deep: true })).toBe(6);
    expect(costWith({ n: null, deep: true })).toBe(11);
  });

  it('follows @include and @skip from the variables', () => {
    expect(costWith({ n: 3, deep: false })).toBe(1);
    expect(costWith({ n: 3, deep: true })).toBe(4);
  });

  it("still checks every request's variables for NUL, though the document was surveyed before", () => {
    expect(costWith({ n: 3 })).toBe(1);
    expect(() => checkQueryLimits({ schema, document, variables: { n: 3, note: 'a\u0000b' }, operationName: undefined }, LIMITS)).toThrow(
      'text must not contain the NUL character (U+0000)',
    );
  });

  it('keeps answering right after more distinct variables than it remembers', () => {
    for (let n = 1; n <= 100; n += 1) expect(costWith({ n, deep: true })).toBe(1 + n);
    expect(costWith({ n: 7, deep: true })).toBe(8);
  });
});

const check = (query: string, variables?: Record<string, unknown>) =>
  checkQueryLimits({ schema, document: parse(query), variables, operationName: undefined }, LIMITS);

describe('first left null', () => {
  it("prices first: null, written or through a variable, at the field's default page (DEFAULT_PAGE_SIZE where it declares none)", () => {
    expect(check('{ items(first: null) { child { id } } }')).toBe(1 + 10 * 1);
    expect(check('{ rows(first: null) { child { id } } }')).toBe(1 + DEFAULT_PAGE_SIZE * 1);
    expect(check('{ rows { child { id } } }')).toBe(1 + DEFAULT_PAGE_SIZE * 1);
    expect(check('query ($n: Int) { rows(first: $n) { child { id } } }', { n: null })).toBe(1 + DEFAULT_PAGE_SIZE * 1);
    expect(check('query ($n: Int) { rows(first: $n) { child { id } } }', {})).toBe(1 + DEFAULT_PAGE_SIZE * 1);
    expect(check('query ($n: Int = null) { items(first: $n) { child { id } } }')).toBe(1 + 10 * 1);
  });

  it("keys a remembered cost on the coerced values: a variable's default and the same value sent cost the same, a null its own", () => {
    const asked = parse('query ($n: Int = 3) { rows(first: $n) { child { id } } }');
    const cost = (variables?: Record<string, unknown>) =>
      checkQueryLimits({ schema, document: asked, variables, operationName: undefined }, LIMITS);
    expect(cost({})).toBe(4);
    expect(cost({ n: 3 })).toBe(4);
    expect(cost({ n: null })).toBe(1 + DEFAULT_PAGE_SIZE);
    expect(cost(undefined)).toBe(4);
  });

  it('refuses variables GraphQL cannot coerce, with its message', () => {
    expect(() => check('query ($n: Int) { rows(first: $n) { id } }', { n: 'many' })).toThrow(
      'Variable "$n" got invalid value "many"; Int cannot represent non-integer value: "many"',
    );
  });
});

describe('root fields', () => {
  const fields = (count: number, prefix: string) => Array.from({ length: count }, (_, index) => `${prefix}${index}: one { id }`).join(' ');

  it('counts the root fields of fragments and inline fragments, aliases each on their own', () => {
    const spread = `{ ...Many } fragment Many on Query { ${fields(MAX_ROOT_FIELDS + 1, 'a')} }`;
    expect(() => check(spread)).toThrow(`the query asks for ${MAX_ROOT_FIELDS + 1} root fields; at most ${MAX_ROOT_FIELDS} are allowed`);
    const inline = `{ ${fields(10, 'a')} ... on Query { ${fields(6, 'b')} ... on Query { ${fields(5, 'c')} } } }`;
    expect(() => check(inline)).toThrow(`the query asks for ${MAX_ROOT_FIELDS + 1} root fields`);
    expect(check(`{ ${fields(10, 'a')} ... on Query { ${fields(10, 'b')} } }`)).toBe(MAX_ROOT_FIELDS);
  });
});
