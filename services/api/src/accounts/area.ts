import { areaPlugin } from '../area-plugin.ts';
import { schemaBeside } from '../graphql/graph-areas.ts';
import { accountResolvers } from './resolvers.ts';

/** Customer sign-in answers with the auth area's TokenPair. */
export const accountsArea = areaPlugin('accounts', ['auth'], (app) => {
  app.addGraphArea({ schema: schemaBeside(import.meta.url), resolvers: accountResolvers });
});
