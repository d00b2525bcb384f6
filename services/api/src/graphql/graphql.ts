import type { FastifyInstance } from 'fastify';
import mercurius from 'mercurius';
import { resolvers, typeDefs } from './schema.ts';
import { formatGraphqlErrors } from './errors.ts';

/** Compile a query to a JIT function once it has been seen this many times. */
const JIT_AFTER_RUNS = 1;

/**
 * POST /graphql (and GET with a query string). In development a browser opening /graphql is
 * sent to the GraphiQL IDE; in production there is no IDE.
 */
export async function graphqlRoutes(app: FastifyInstance, options: { ide: boolean }): Promise<void> {
  await app.register(mercurius, {
    schema: typeDefs,
    resolvers,
    jit: JIT_AFTER_RUNS,
    graphiql: options.ide,
    errorFormatter: formatGraphqlErrors,
  });
  if (!options.ide) return;
  app.addHook('onRequest', async (request, reply) => {
    const wantsPage = request.method === 'GET' && request.url === '/graphql' && request.headers.accept?.includes('text/html');
    if (wantsPage) return reply.redirect('/graphiql', 302);
  });
}
