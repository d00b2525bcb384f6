import { areaPlugin } from '../area-plugin.ts';
import { schemaBeside } from '../graphql/graph-areas.ts';
import { inventoryResolvers } from './resolvers.ts';

export const inventoryArea = areaPlugin('inventory', [], (app) => {
  app.addGraphArea({ schema: schemaBeside(import.meta.url), resolvers: inventoryResolvers });
});
