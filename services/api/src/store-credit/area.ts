import { areaPlugin } from '../area-plugin.ts';
import { schemaBeside } from '../graphql/graph-areas.ts';
import { storeCreditResolvers } from './resolvers.ts';

/** Store credit: staff issue it and read an account's ledger; customers see their balances. */
export const storeCreditArea = areaPlugin('store-credit', ['accounts'], (app) => {
  app.addGraphArea({ schema: schemaBeside(import.meta.url), resolvers: storeCreditResolvers });
});
