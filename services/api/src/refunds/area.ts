import { areaPlugin } from '../area-plugin.ts';
import { schemaBeside } from '../graphql/graph-areas.ts';
import { refundLoaders } from './loaders.ts';
import { refundResolvers } from './resolvers.ts';

/** Refunds: staff request them of an order (split across its tenders), retry a failed one or send it to store credit; whoever reads an order sees them. */
export const refundsArea = areaPlugin('refunds', ['orders'], (app) => {
  app.addGraphArea({ schema: schemaBeside(import.meta.url), resolvers: refundResolvers, loaders: refundLoaders });
});
