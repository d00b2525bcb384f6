import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import mercurius from 'mercurius';
import { JsonScalar } from './scalars.ts';
import { formatGraphqlErrors } from './errors.ts';
import { requestScope, type ApiServices } from './context.ts';
import { addGraphArea, schemaBeside } from './graph-areas.ts';
import { checkQueryLimits, type QueryLimits } from './query-limits.ts';
import { chargeQueryCost } from './cost-charge.ts';
import { authenticateGraphqlRequests } from '../auth/request-auth.ts';

/** Compile a query to a JIT function once it has been seen this many times. */
const JIT_AFTER_RUNS = 1;
/** Deep enough for a category tree a few levels down; bounds the work one query can ask for. */
const MAX_QUERY_DEPTH = 12;

const SHARED_SCHEMA = schemaBeside(import.meta.url);

export interface GraphqlOptions {
  /** GraphiQL at /graphiql, and a browser opening /graphql sent there (development only). */
  readonly ide: boolean;
  readonly services: ApiServices;
  readonly limits: QueryLimits;
}

/** The operation a request names (POST body or GET query string), if any. */
function operationNameOf(request: FastifyRequest): string | undefined {
  const params = (request.method === 'GET' ? request.query : request.body) as { operationName?: unknown } | undefined;
  return typeof params?.operationName === 'string' && params.operationName !== '' ? params.operationName : undefined;
}

/**
 * POST /graphql (and GET with a query string) with the shared types; the areas add the rest through
 * `app.addGraphArea` (each area plugin declares `dependencies: ['graphql']`).
 */
export const graphqlPlugin = fp<GraphqlOptions>(
  async (app, options) => {
    authenticateGraphqlRequests(app, options.services.tokens);
    await app.register(mercurius, {
      schema: SHARED_SCHEMA,
      resolvers: { JSON: JsonScalar },
      context: (request) => ({ shop: requestScope(request, options.services) }),
      jit: JIT_AFTER_RUNS,
      queryDepth: MAX_QUERY_DEPTH,
      graphiql: options.ide,
      errorFormatter: formatGraphqlErrors,
    });
    app.graphql.addHook('preExecution', async (schema, document, context, variables) => {
      const cost = checkQueryLimits({ schema, document, variables, operationName: operationNameOf(context.reply.request) }, options.limits);
      await chargeQueryCost(context.reply, cost);
    });
    app.decorate('addGraphArea', (area) => addGraphArea(app, area));
    if (!options.ide) return;
    app.addHook('onRequest', async (request, reply) => {
      const wantsPage = request.method === 'GET' && request.url === '/graphql' && request.headers.accept?.includes('text/html');
      if (wantsPage) return reply.redirect('/graphiql', 302);
    });
  },
  { name: 'graphql', fastify: '5.x' },
);
