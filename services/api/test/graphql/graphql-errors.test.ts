import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GraphQLError } from 'graphql';
import { DomainError } from '@shop/domain/kernel';
import { toClientError } from '../../src/graphql/errors.ts';
import { openGraphqlApi, type GraphqlApi } from '../support/graphql-harness.ts';

let api: GraphqlApi;

beforeAll(async () => {
  api = await openGraphqlApi('graphql_errors');
});

afterAll(async () => {
  await api?.close();
});

describe('toClientError', () => {
  const logged: object[] = [];
  const log = { error: (object: object) => void logged.push(object) };

  it('turns a DomainError into its code with its details as extensions', () => {
    const error = new GraphQLError('wrapped', {
      path: ['addCartLine'],
      originalError: new DomainError('BAD_USER_INPUT', 'quantity is bad', { field: 'quantity' }),
    });
    const client = toClientError(error, log);
    expect(client.message).toBe('quantity is bad');
    expect(client.extensions).toEqual({ field: 'quantity', code: 'BAD_USER_INPUT' });
    expect(client.path).toEqual(['addCartLine']);
  });

  it('answers any other resolver failure as INTERNAL without its message, and logs it', () => {
    const secret = new Error('connect ECONNREFUSED 10.0.0.7:5432 password=hunter2');
    const client = toClientError(new GraphQLError(secret.message, { path: ['products'], originalError: secret }), log);
    expect(client.message).toBe('Internal server error');
    expect(client.extensions).toEqual({ code: 'INTERNAL' });
    expect(logged).toContainEqual({ err: secret, path: 'products' });
  });

  it('turns a unique violation into CONFLICT naming the field', () => {
    const violation = Object.assign(new Error('Unique constraint failed'), {
      code: 'P2002',
      meta: { driverAdapterError: { cause: { table: 'stock_locations', constraint: { index: 'stock_locations_name_key' } } } },
    });
    const client = toClientError(new GraphQLError('x', { path: ['createStockLocation'], originalError: violation }), log);
    expect(client.extensions).toEqual({ code: 'CONFLICT', field: 'name' });
  });

  it('leaves errors GraphQL raised itself alone', () => {
    const validation = new GraphQLError('Cannot query field "nope" on type "Query".');
    expect(toClientError(validation, log)).toBe(validation);
  });
});

describe('errors through /graphql', () => {
  it('answers a domain refusal with 200, null data and the code', async () => {
    const response = await api.request('{ me { id } }');
    expect(response.status).toBe(200);
    expect(response.data).toBeNull();
    expect(response.errors).toEqual([
      {
        message: 'sign in as a customer to do this',
        locations: [{ line: 1, column: 3 }],
        path: ['me'],
        extensions: { code: 'UNAUTHENTICATED' },
      },
    ]);
  });

  it('answers 500 when the server failed and there is no data, so the 5xx rate counts it', async () => {
    const broken = await openGraphqlApi('graphql_errors_broken');
    try {
      await broken.platform.database.pool.query('DROP TABLE brands CASCADE');
      const response = await broken.request('{ brands { id } }');
      expect(response.status).toBe(500);
      expect(response.data).toBeNull();
      expect(response.errors).toMatchObject([{ message: 'Internal server error', path: ['brands'], extensions: { code: 'INTERNAL' } }]);
    } finally {
      await broken.close();
    }
  });

  it('answers a variable of the wrong type with 400 BAD_REQUEST naming it', async () => {
    const error = await api.error(
      'query ($first: Int) { products(first: $first) { nodes { id } } }',
      { first: 2 ** 40 },
      { 'x-channel-id': '1' },
    );
    expect(error.status).toBe(400);
    expect(error.extensions.code).toBe('BAD_REQUEST');
    expect(error.message).toMatch(/\$first/);
  });

  it('refuses a query nested deeper than 12 levels', async () => {
    const nested = (depth: number): string => (depth === 0 ? 'id' : `children { ${nested(depth - 1)} }`);
    const deep = await api.request(`{ categories { ${nested(12)} } }`);
    expect(deep.status).toBe(400);
    expect(deep.errors?.[0]?.extensions.code).toBe('BAD_REQUEST');
    expect(deep.errors?.[0]?.message).toMatch(/depth/i);
    expect((await api.request(`{ categories { ${nested(5)} } }`)).errors).toBeUndefined();
  });

  // Found by the fuzz test (docs/fuzzing.md): PostgreSQL refuses NUL in text (22021) and jsonb (22P05), and it was answered INTERNAL, a 500.
  it('refuses text with the NUL character as BAD_USER_INPUT before anything runs, in a variable, a nested input and a literal', async () => {
    const admin = await api.adminHeaders();
    const refused = { status: 400, message: 'text must not contain the NUL character (U+0000)', extensions: { code: 'BAD_USER_INPUT' } };
    expect(
      await api.error('mutation ($name: String!) { createStockLocation(name: $name) { id } }', { name: 'Back\u0000room' }, admin),
    ).toMatchObject(refused);
    expect(await api.prisma.stockLocation.count({ where: { name: { startsWith: 'Back' } } })).toBe(0);
    const channel = await api.data<{ createChannel: { id: string } }>(
      'mutation { createChannel(input: { code: "nul", name: "NUL", defaultCurrency: "EUR" }) { id } }',
      {},
      admin,
    );
    const shop = { 'x-channel-id': channel.createChannel.id };
    expect(await api.error('query ($slug: String) { product(slug: $slug) { id } }', { slug: 'a\u0000b' }, shop)).toMatchObject(refused);
    expect(await api.error('query { product(slug: "a\\u0000b") { id } }', {}, shop)).toMatchObject(refused);
    const nested = 'mutation ($input: ChannelInput!) { createChannel(input: $input) { id } }';
    expect(await api.error(nested, { input: { code: 'nul2', name: 'N\u0000L', defaultCurrency: 'EUR' } }, admin)).toMatchObject(refused);
    expect(await api.prisma.channel.count({ where: { code: 'nul2' } })).toBe(0);
  });

  it('keeps the same answers once a query is compiled to JIT code', async () => {
    const guest = { 'x-session-id': await api.guestSession() };
    for (let run = 0; run < 3; run += 1) {
      const error = await api.error('mutation { addCartLine(cartId: "x", productId: "1", quantity: 1) { id } }', {}, guest);
      expect(error).toMatchObject({
        message: 'cartId must be a numeric id such as "42"',
        extensions: { code: 'BAD_USER_INPUT', field: 'cartId' },
      });
    }
  });
});
