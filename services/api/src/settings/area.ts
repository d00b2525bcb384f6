import { areaPlugin } from '../area-plugin.ts';
import { schemaBeside } from '../graphql/graph-areas.ts';
import { settingsResolvers } from './resolvers.ts';

export const settingsArea = areaPlugin('settings', [], (app) => {
  app.addGraphArea({ schema: schemaBeside(import.meta.url), resolvers: settingsResolvers });
});
