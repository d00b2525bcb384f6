import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import fp from 'fastify-plugin';
import { describe, expect, it } from 'vitest';
import { RESOLVER_TYPES_FILE, resolverTypes } from '../../src/graphql/generate-resolver-types.ts';
import { gateStaffFields } from '../../src/graphql/staff-permissions.ts';
import { addGraphArea } from '../../src/graphql/graph-areas.ts';
import { staffField } from '../../src/graphql/staff-fields.ts';
import { areaPlugin } from '../../src/area-plugin.ts';
import type { Resolvers } from '../../src/graphql/generated/resolver-types.ts';

/** Resolvers of a made-up schema, which the generated types do not describe. */
const made = (resolvers: object): Resolvers => resolvers as Resolvers;

describe('resolver types', () => {
  it('are generated from the schema as committed (run npm run graphql:generate after a schema change)', async () => {
    expect(readFileSync(RESOLVER_TYPES_FILE, 'utf8')).toBe(await resolverTypes());
  });
});

describe('@staff', () => {
  const sdl = `
    extend type Query {
      "orders, newest first."
      orders: [ID!]! @staff(permission: "orders.read")
      "Cart lines show the price they were added at."
      product: ID @staff(permission: "catalog.write")
      order: ID @staff(permission: "orders.read")
      open: ID
    }`;

  it('documents the permission in the description and leaves the directive out of the served schema', () => {
    const { schema, permissions } = gateStaffFields(sdl);
    expect(schema).not.toContain('@staff');
    expect(schema).toContain('"Staff (orders.read): orders, newest first."');
    expect(schema).toContain('"Staff (catalog.write). Cart lines show the price they were added at."');
    expect(schema).toContain('"Staff (orders.read)."\n  order: ID');
    expect([...permissions]).toEqual([
      ['Query.orders', 'orders.read'],
      ['Query.product', 'catalog.write'],
      ['Query.order', 'orders.read'],
    ]);
  });

  it('refuses a permission nobody declared, naming the field', () => {
    expect(() => gateStaffFields('extend type Query { x: ID @staff(permission: "orders.steal") }')).toThrow(
      'Query.x: @staff names orders.steal, which is not a declared permission',
    );
  });

  it('stops the boot when a @staff field has a plain resolver, or a staff resolver has no @staff', async () => {
    const app = Fastify();
    await app.register((await import('mercurius')).default, { schema: 'type Query { ok: ID }' });
    const schema = 'extend type Query { orders: ID @staff(permission: "orders.read") }';
    expect(() => addGraphArea(app, { schema, resolvers: made({ Query: { orders: () => '1' } }) })).toThrow(
      'Query.orders declares @staff(permission: "orders.read") but its resolver is not a staffField',
    );
    const plain = 'extend type Query { order: ID }';
    expect(() => addGraphArea(app, { schema: plain, resolvers: made({ Query: { order: staffField(async () => '1') } }) })).toThrow(
      'Query.order is a staffField but its schema declares no @staff permission',
    );
    await app.close();
  });
});

describe('area plugins', () => {
  it('fail at boot, naming the dependency, when an area they need is not registered', async () => {
    const reports = areaPlugin('reports', ['tracking'], () => undefined);
    // Only the dependency checks run: the options are never read.
    await expect(
      Fastify()
        .register(reports, {} as never)
        .ready(),
    ).rejects.toThrow(/dependency 'graphql' of plugin 'reports' is not registered/);
    const withGraphql = Fastify().register(fp(async () => undefined, { name: 'graphql' }));
    await expect(withGraphql.register(reports, {} as never).ready()).rejects.toThrow(
      /dependency 'tracking' of plugin 'reports' is not registered/,
    );
  });
});
