import { areaPlugin } from '../area-plugin.ts';
import { schemaBeside } from '../graphql/graph-areas.ts';
import { returnLoaders } from './loaders.ts';
import { returnResolvers } from './resolvers.ts';

/** Returns (RMAs): customers ask back units of their fulfilled orders, staff receive them. */
export const returnsArea = areaPlugin('returns', ['orders'], (app) => {
  app.addGraphArea({ schema: schemaBeside(import.meta.url), resolvers: returnResolvers, loaders: returnLoaders });
});
