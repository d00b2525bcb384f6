import fc from 'fast-check';
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkQueryLimits, MAX_ROOT_FIELDS } from '../../src/graphql/query-limits.ts';
import { DEFAULT_PAGE_SIZE } from '../../src/graphql/ids.ts';
import { openGraphqlApi, seedDemoShop, type GraphqlApi } from '../support/graphql-harness.ts';

// Generated queries over the served schema, against a seeded database: whatever the cost check
// accepts answers no more page items than its cost priced, and no more root fields than the cap.

let api: GraphqlApi;
let channel: Record<string, string>;

beforeAll(async () => {
  api = await openGraphqlApi('graphql_cost_properties');
  channel = { 'x-channel-id': (await seedDemoShop(api)).channelId };
});

afterAll(async () => {
  await api?.close();
});

/** How a products field gets its `first`. */
type First =
  | { kind: 'absent' }
  | { kind: 'null' }
  | { kind: 'literal'; value: number }
  | { kind: 'variable'; value: number | null | undefined; fallback: number | null | undefined };

const firstArbitrary: fc.Arbitrary<First> = fc.oneof(
  fc.constant({ kind: 'absent' as const }),
  fc.constant({ kind: 'null' as const }),
  fc.record({ kind: fc.constant('literal' as const), value: fc.integer({ min: 1, max: 100 }) }),
  fc.record({
    kind: fc.constant('variable' as const),
    value: fc.option(fc.option(fc.integer({ min: 1, max: 100 }), { nil: null }), { nil: undefined }),
    fallback: fc.option(fc.option(fc.integer({ min: 1, max: 100 }), { nil: null }), { nil: undefined }),
  }),
);

const SELECTIONS = ['id', 'id brand { id }', 'id categories { id parent { id } }', 'id brand { id name } categories { id }'];

interface Field {
  readonly first: First;
  readonly selection: string;
  readonly placement: 'direct' | 'fragment' | 'inline';
}

const fieldArbitrary: fc.Arbitrary<Field> = fc.record({
  first: firstArbitrary,
  selection: fc.constantFrom(...SELECTIONS),
  placement: fc.constantFrom('direct' as const, 'fragment' as const, 'inline' as const),
});

/** A document of aliased products fields, some inside a fragment or an inline fragment, with its variables. */
function queryOf(fields: readonly Field[]): { query: string; variables: Record<string, unknown> } {
  const definitions: string[] = [];
  const variables: Record<string, unknown> = {};
  const byPlacement = { direct: [] as string[], fragment: [] as string[], inline: [] as string[] };
  fields.forEach(({ first, selection, placement }, index) => {
    let argument = '';
    if (first.kind === 'null') argument = '(first: null)';
    if (first.kind === 'literal') argument = `(first: ${first.value})`;
    if (first.kind === 'variable') {
      definitions.push(`$f${index}: Int${first.fallback === undefined ? '' : ` = ${first.fallback}`}`);
      if (first.value !== undefined) variables[`f${index}`] = first.value;
      argument = `(first: $f${index})`;
    }
    byPlacement[placement].push(`p${index}: products${argument} { nodes { ${selection} } }`);
  });
  const root = [...byPlacement.direct];
  if (byPlacement.inline.length > 0) root.push(`... on Query { ${byPlacement.inline.join(' ')} }`);
  if (byPlacement.fragment.length > 0) root.push('...Pages');
  const head = definitions.length === 0 ? 'query' : `query (${definitions.join(', ')})`;
  const fragment = byPlacement.fragment.length === 0 ? '' : ` fragment Pages on Query { ${byPlacement.fragment.join(' ')} }`;
  return { query: `${head} { ${root.join(' ')} }${fragment}`, variables };
}

const costOf = (query: string, variables: Record<string, unknown>) =>
  checkQueryLimits(
    { schema: api.app.graphql.schema, document: parse(query), variables, operationName: undefined },
    { maxCost: Number.MAX_SAFE_INTEGER, introspection: true },
  );

describe('the cost check over generated queries', () => {
  it('accepts nothing that answers more page items than its cost, or more root fields than the cap', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fieldArbitrary, { minLength: 1, maxLength: MAX_ROOT_FIELDS + 4 }), async (fields) => {
        const { query, variables } = queryOf(fields);
        const response = await api.request<Record<string, { nodes: unknown[] } | null>>(query, variables, channel);
        const tooLarge = response.errors?.some((error) => error.extensions.code === 'QUERY_TOO_LARGE') ?? false;
        if (tooLarge) return;
        expect(response.status).toBe(200);
        const answered = Object.values(response.data ?? {});
        expect(answered.length).toBeLessThanOrEqual(MAX_ROOT_FIELDS);
        const items = answered.reduce((sum, page) => sum + (page?.nodes.length ?? 0), 0);
        expect(items).toBeLessThanOrEqual(costOf(query, variables));
      }),
      { numRuns: 60, seed: 25 },
    );
  });

  it('prices a page no lower for a larger first, and a null or absent first as the default page', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 100 }), fc.constantFrom(...SELECTIONS), (a, b, selection) => {
        const page = (argument: string) => costOf(`{ products${argument} { nodes { ${selection} } } }`, {});
        const [low, high] = a <= b ? [a, b] : [b, a];
        expect(page(`(first: ${low})`)).toBeLessThanOrEqual(page(`(first: ${high})`));
        expect(page('(first: null)')).toBe(page(`(first: ${DEFAULT_PAGE_SIZE})`));
        expect(page('')).toBe(page(`(first: ${DEFAULT_PAGE_SIZE})`));
      }),
      { numRuns: 200, seed: 25 },
    );
  });
});
