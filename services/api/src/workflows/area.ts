import { areaPlugin } from '../area-plugin.ts';
import { schemaBeside } from '../graphql/graph-areas.ts';
import { workflowResolvers } from './resolvers.ts';

/** The faults workflows recorded (the workflows themselves run on the engine api-workflows.ts chooses: in the worker, or in-process). */
export const workflowsArea = areaPlugin('workflows', [], (app) => {
  app.addGraphArea({ schema: schemaBeside(import.meta.url), resolvers: workflowResolvers });
});
