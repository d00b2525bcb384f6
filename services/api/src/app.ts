import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Platform } from '@shop/platform';
import { echoRequestId, requestIdFor } from './http/request-id.ts';
import { logEveryRequest } from './http/access-log.ts';
import { measureHttp } from './http/http-metrics.ts';
import { answerErrorsAsJson } from './http/errors.ts';
import { closeIdleConnectionsWhileDraining } from './http/close-idle-connections.ts';
import { healthRoutes } from './health/routes.ts';
import { metricsRoute } from './metrics/routes.ts';
import { graphqlRoutes } from './graphql/graphql.ts';

export type AppPlatform = Pick<Platform, 'config' | 'logger' | 'metrics' | 'database' | 'cache' | 'broker'>;

/** Builds the HTTP app over an opened platform; the caller listens and closes. */
export async function buildApp(platform: AppPlatform): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: platform.logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    genReqId: requestIdFor,
    forceCloseConnections: 'idle',
    trustProxy: true,
  });
  echoRequestId(app);
  logEveryRequest(app);
  measureHttp(app, platform.metrics);
  answerErrorsAsJson(app);
  closeIdleConnectionsWhileDraining(app);
  healthRoutes(app, { database: platform.database, cache: platform.cache, broker: platform.broker });
  metricsRoute(app, platform.metrics);
  await graphqlRoutes(app, { ide: platform.config.nodeEnv === 'development' });
  return app;
}
