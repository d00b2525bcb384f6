import { areaPlugin } from '../area-plugin.ts';
import { schemaBeside } from '../graphql/graph-areas.ts';
import { workflowResolvers } from './resolvers.ts';

/** The faults workflows recorded (the workflows themselves run in the worker, or embedded: api-workflows.ts). */
export const workflowsArea = areaPlugin('workflows', [], (app) => {
  app.addGraphArea({ schema: schemaBeside(import.meta.url), resolvers: workflowResolvers });
});
