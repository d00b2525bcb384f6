import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openGraphqlApi, seedDemoShop, type GraphqlApi } from '../support/graphql-harness.ts';

const PRODUCT =
  'id sku name slug description price currency active brand { id name slug } categories { id name slug parent { id name } } available';

let api: GraphqlApi;
let closed: GraphqlApi;
let channel: Record<string, string>;

beforeAll(async () => {
  [api, closed] = await Promise.all([
    openGraphqlApi('graphql_limits'),
    openGraphqlApi('graphql_limits_closed', { GRAPHQL_INTROSPECTION: 'off' }),
  ]);
  channel = { 'x-channel-id': (await seedDemoShop(api)).channelId };
});

afterAll(async () => {
  await Promise.all([api?.close(), closed?.close()]);
});

describe('query cost', () => {
  it("runs the storefront's largest page, 100 products with their brand and categories (cost 501)", async () => {
    const { products } = await api.data<{ products: { nodes: unknown[] } }>(
      `{ products(first: 100) { nodes { ${PRODUCT} } pageInfo { hasNextPage } } }`,
      {},
      channel,
    );
    expect(products.nodes.length).toBeGreaterThan(0);
  });

  it('refuses a costlier query with 400 naming its cost and the limit, counting first from the variables', async () => {
    // Each alias costs 1 + first × 4 (nodes, brand, categories, parent).
    const pages = Array.from(
      { length: 13 },
      (_, i) => `p${i}: products(first: $n) { nodes { brand { id } categories { parent { id } } } }`,
    ).join(' ');
    const query = `query ($n: Int) { ${pages} }`;
    expect((await api.request(query, { n: 2 }, channel)).errors).toBeUndefined();
    const error = await api.error(query, { n: 100 }, channel);
    expect(error).toMatchObject({ status: 400, extensions: { code: 'QUERY_TOO_LARGE', cost: 5_213, limit: 5_000 } });
    expect(error.message).toBe('the query costs 5213; at most 5000 is allowed (ask for fewer items with first, or split it)');
  });

  it('refuses more than 30 aliases, however cheap each field is', async () => {
    const aliases = Array.from({ length: 31 }, (_, i) => `c${i}: channels { id }`).join(' ');
    expect(await api.error(`{ ${aliases} }`)).toMatchObject({
      status: 400,
      extensions: { code: 'QUERY_TOO_LARGE', aliases: 31, limit: 30 },
    });
  });

  it('refuses more than 20 root fields, counting the operation that runs', async () => {
    const fields = Array.from({ length: 21 }, () => 'health').join(' ');
    const response = await api.app.inject({
      method: 'POST',
      url: '/graphql',
      payload: { query: `query Small { health } query Big { ${fields} }`, operationName: 'Small' },
    });
    expect(response.json()).toEqual({ data: { health: 'ok' } });
    const big = await api.app.inject({
      method: 'POST',
      url: '/graphql',
      payload: { query: `query Small { health } query Big { ${fields} }`, operationName: 'Big' },
    });
    expect(big.statusCode).toBe(400);
    expect(big.json()).toMatchObject({ errors: [{ extensions: { code: 'QUERY_TOO_LARGE', rootFields: 21, limit: 20 } }] });
  });
});

describe('introspection', () => {
  const INTROSPECTION = '{ __schema { queryType { name } } }';

  it('is answered where GRAPHQL_INTROSPECTION is on (the default outside production)', async () => {
    expect(await api.data(INTROSPECTION)).toEqual({ __schema: { queryType: { name: 'Query' } } });
  });

  it('is refused with 400 where it is off, while other queries (and __typename) run', async () => {
    const error = await closed.error(INTROSPECTION);
    expect(error).toMatchObject({ status: 400, extensions: { code: 'INTROSPECTION_DISABLED' } });
    expect(error.message).toBe('introspection (__schema, __type) is turned off here (GRAPHQL_INTROSPECTION)');
    expect(await closed.data('{ __typename health }')).toEqual({ __typename: 'Query', health: 'ok' });
  });
});
