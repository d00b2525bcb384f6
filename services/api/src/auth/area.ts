import { limitPasswordQueue } from '@shop/domain/accounts';
import { areaPlugin } from '../area-plugin.ts';
import { schemaBeside } from '../graphql/graph-areas.ts';
import { authResolvers } from './resolvers.ts';

export const authArea = areaPlugin('auth', [], (app, { platform }) => {
  limitPasswordQueue(platform.config.passwordQueueMax);
  app.addGraphArea({ schema: schemaBeside(import.meta.url), resolvers: authResolvers });
});
