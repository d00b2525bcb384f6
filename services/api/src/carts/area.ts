import { areaPlugin } from '../area-plugin.ts';
import { schemaBeside } from '../graphql/graph-areas.ts';
import { cartLoaders } from './loaders.ts';
import { cartResolvers } from './resolvers.ts';

/** Carts hold catalog products (CartLine.product). */
export const cartsArea = areaPlugin('carts', ['catalog'], (app) => {
  app.addGraphArea({ schema: schemaBeside(import.meta.url), resolvers: cartResolvers, loaders: cartLoaders });
});
