import type { IResolvers, MercuriusLoaders } from 'mercurius';
import { JsonScalar } from './scalars.ts';
import { accountResolvers } from './resolvers/accounts.ts';
import { catalogLoaders, catalogResolvers } from './resolvers/catalog.ts';
import { cartResolvers } from './resolvers/carts.ts';
import { orderResolvers } from './resolvers/orders.ts';
import { adminResolvers } from './resolvers/admin.ts';
import { catalogAdminResolvers } from './resolvers/catalog-admin.ts';
import { reportResolvers } from './resolvers/reports.ts';
import { trackingResolvers } from './resolvers/tracking.ts';
import { workflowResolvers } from './resolvers/workflows.ts';

export { typeDefs } from './type-defs.ts';

const areas: readonly IResolvers[] = [accountResolvers, catalogResolvers, cartResolvers, orderResolvers, adminResolvers, catalogAdminResolvers, reportResolvers, trackingResolvers, workflowResolvers];

/** Each area's Query and Mutation fields in one map; a field defined twice is a wiring mistake. */
function merged(type: 'Query' | 'Mutation'): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const area of areas) {
    for (const [name, resolver] of Object.entries(area[type] ?? {})) {
      if (name in fields) throw new Error(`GraphQL field ${type}.${name} is resolved twice`);
      fields[name] = resolver;
    }
  }
  return fields;
}

export const resolvers: IResolvers = {
  JSON: JsonScalar,
  Query: { health: () => 'ok', ...merged('Query') } as IResolvers['Query'],
  Mutation: merged('Mutation') as IResolvers['Mutation'],
};

export const loaders: MercuriusLoaders = catalogLoaders;
