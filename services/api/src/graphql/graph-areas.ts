import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { IResolvers, MercuriusLoaders } from 'mercurius';
import type { Resolvers } from './generated/resolver-types.ts';
import { gateStaffFields } from './staff-permissions.ts';
import { bindStaffField, isStaffField } from './staff-fields.ts';

/** What an area adds to the GraphQL api: its schema (types, and fields of Query and Mutation), resolvers and loaders. */
export interface GraphArea {
  /** SDL; `extend type Query { ... }` and `extend type Mutation { ... }` add operations. */
  readonly schema: string;
  readonly resolvers: Resolvers;
  /** Batched field resolvers (mercurius loaders), per type. */
  readonly loaders?: MercuriusLoaders;
  /** Permissions its @staff fields may name besides the core ones: an extension's own. */
  readonly permissions?: readonly string[];
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Adds an area's schema, resolvers and loaders (available once the graphql plugin is registered). */
    addGraphArea(area: GraphArea): void;
  }
}

type ResolverMap = Record<string, Record<string, unknown>>;

/** Each staffField bound to its field's @staff permission; a mismatch either way stops the boot. */
function withPermissions(resolvers: Resolvers, permissions: ReadonlyMap<string, string>): IResolvers {
  const bound: ResolverMap = {};
  const unresolved = new Set(permissions.keys());
  for (const [typeName, fields] of Object.entries(resolvers as ResolverMap)) {
    const boundFields: Record<string, unknown> = {};
    for (const [fieldName, resolver] of Object.entries(fields)) {
      const where = `${typeName}.${fieldName}`;
      const permission = permissions.get(where);
      unresolved.delete(where);
      if (isStaffField(resolver) && permission !== undefined) boundFields[fieldName] = bindStaffField(resolver, permission);
      else if (permission !== undefined)
        throw new Error(`${where} declares @staff(permission: "${permission}") but its resolver is not a staffField`);
      else if (isStaffField(resolver)) throw new Error(`${where} is a staffField but its schema declares no @staff permission`);
      else boundFields[fieldName] = resolver;
    }
    bound[typeName] = boundFields;
  }
  if (unresolved.size > 0) throw new Error(`${[...unresolved].join(', ')} declare @staff but have no resolver`);
  return bound as IResolvers;
}

export function addGraphArea(app: FastifyInstance, area: GraphArea): void {
  const { schema, permissions } = gateStaffFields(area.schema, area.permissions);
  // Typed Promise | void for mercurius's gateway mode; without a gateway it extends the schema at once.
  void app.graphql.extendSchema(schema);
  app.graphql.defineResolvers(withPermissions(area.resolvers, permissions));
  if (area.loaders !== undefined) app.graphql.defineLoaders(area.loaders);
}

/** The schema.graphql beside an area's module (pass its import.meta.url). */
export function schemaBeside(moduleUrl: string): string {
  return readFileSync(new URL('schema.graphql', moduleUrl), 'utf8');
}
