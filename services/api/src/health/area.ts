import { areaPlugin } from '../area-plugin.ts';
import { schemaBeside } from '../graphql/graph-areas.ts';
import { healthRoutes } from './routes.ts';

/** GET /health and /ready, and the legacy in-graph Query.health. */
export const healthArea = areaPlugin('health', [], (app, { platform }) => {
  healthRoutes(
    app,
    { database: platform.database, cache: platform.cache, broker: platform.broker },
    { errorText: platform.config.nodeEnv !== 'production' },
  );
  app.addGraphArea({ schema: schemaBeside(import.meta.url), resolvers: { Query: { health: () => 'ok' } } });
});
