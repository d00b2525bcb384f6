import { areaPlugin } from '../area-plugin.ts';
import { schemaBeside } from '../graphql/graph-areas.ts';
import { trackingResolvers } from './resolvers.ts';
import { trackingRoutes } from './routes.ts';

/** POST /track and the track mutation, over one Tracker. */
export const trackingArea = areaPlugin('tracking', [], (app, { platform }) => {
  const { tracker } = trackingRoutes(app, platform);
  app.addGraphArea({ schema: schemaBeside(import.meta.url), resolvers: trackingResolvers(tracker) });
});
