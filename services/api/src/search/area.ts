import { areaPlugin } from '../area-plugin.ts';
import { schemaBeside } from '../graphql/graph-areas.ts';
import { searchResolvers } from './resolvers.ts';

// After orders: its hits reuse the OrderStatus enum.
export const searchArea = areaPlugin('search', ['orders'], (app) => {
  app.addGraphArea({ schema: schemaBeside(import.meta.url), resolvers: searchResolvers });
});
