import type { FastifyInstance } from 'fastify';
import mercurius from 'mercurius';
import { loaders, resolvers, typeDefs } from './schema.ts';
import { formatGraphqlErrors } from './errors.ts';
import { requestScope, type ApiServices } from './context.ts';
import { authenticateGraphqlRequests } from '../auth/request-auth.ts';

/** Compile a query to a JIT function once it has been seen this many times. */
const JIT_AFTER_RUNS = 1;
/** Deep enough for a category tree a few levels down; bounds the work one query can ask for. */
const MAX_QUERY_DEPTH = 12;

/**
 * POST /graphql (and GET with a query string). In development a browser opening /graphql is
 * sent to the GraphiQL IDE; in production there is no IDE.
 */
export async function graphqlRoutes(app: FastifyInstance, options: { ide: boolean; services: ApiServices }): Promise<void> {
  authenticateGraphqlRequests(app, options.services.tokens);
  await app.register(mercurius, {
    schema: typeDefs,
    resolvers,
    loaders,
    context: (request) => ({ shop: requestScope(request, options.services) }),
    jit: JIT_AFTER_RUNS,
    queryDepth: MAX_QUERY_DEPTH,
    graphiql: options.ide,
    errorFormatter: formatGraphqlErrors,
  });
  if (!options.ide) return;
  app.addHook('onRequest', async (request, reply) => {
    const wantsPage = request.method === 'GET' && request.url === '/graphql' && request.headers.accept?.includes('text/html');
    if (wantsPage) return reply.redirect('/graphiql', 302);
  });
}
