import { areaPlugin } from '../area-plugin.ts';
import { schemaBeside } from '../graphql/graph-areas.ts';
import { orderLoaders } from './loaders.ts';
import { orderResolvers } from './resolvers.ts';

export const ordersArea = areaPlugin('orders', [], (app) => {
  app.addGraphArea({ schema: schemaBeside(import.meta.url), resolvers: orderResolvers, loaders: orderLoaders });
});
