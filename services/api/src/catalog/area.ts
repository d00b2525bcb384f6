import { areaPlugin } from '../area-plugin.ts';
import { schemaBeside } from '../graphql/graph-areas.ts';
import { catalogAdminResolvers } from './admin-resolvers.ts';
import { catalogLoaders } from './loaders.ts';
import { catalogResolvers } from './resolvers.ts';

export const catalogArea = areaPlugin('catalog', [], (app) => {
  app.addGraphArea({
    schema: schemaBeside(import.meta.url),
    resolvers: { ...catalogResolvers, ...catalogAdminResolvers },
    loaders: catalogLoaders,
  });
});
