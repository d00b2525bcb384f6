import { areaPlugin } from '../area-plugin.ts';
import { schemaBeside } from '../graphql/graph-areas.ts';
import { reportResolvers } from './resolvers.ts';

/** Reports on tracked entities (TrackedEntityType comes from the tracking area). */
export const reportsArea = areaPlugin('reports', ['tracking'], (app) => {
  app.addGraphArea({ schema: schemaBeside(import.meta.url), resolvers: reportResolvers });
});
