import { areaPlugin } from '../area-plugin.ts';
import { schemaBeside } from '../graphql/graph-areas.ts';
import { storefrontTokenResolvers } from './resolvers.ts';

/** Staff create, list and revoke the storefront access tokens BFFs send; bff-requests.ts checks them. */
export const storefrontTokensArea = areaPlugin('storefront-tokens', [], (app) => {
  app.addGraphArea({ schema: schemaBeside(import.meta.url), resolvers: storefrontTokenResolvers });
});
