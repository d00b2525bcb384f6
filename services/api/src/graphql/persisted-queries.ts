import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import mercurius, { type MercuriusContext } from 'mercurius';
import { isActiveStaff } from '@shop/domain/auth';
import type { PersistedQueries } from '@shop/platform';

/** The SHA-256 of a query's text in lowercase hex, the key of GRAPHQL_PERSISTED_QUERIES_FILE. */
const queryHash = (query: string): string => createHash('sha256').update(query, 'utf8').digest('hex');

interface GraphqlParams {
  query?: unknown;
  extensions?: unknown;
}

/** The request's parameters: the POST body, or the GET query string (whose extensions are JSON text). */
function paramsOf(request: FastifyRequest): { params: GraphqlParams; extensions: unknown } | undefined {
  const params = (request.method === 'GET' ? request.query : request.body) as GraphqlParams | undefined;
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return undefined;
  if (typeof params.extensions !== 'string') return { params, extensions: params.extensions };
  try {
    return { params, extensions: JSON.parse(params.extensions) };
  } catch {
    return { params, extensions: undefined };
  }
}

/** `extensions.persistedQuery` as Apollo's clients send it: `{ "version": 1, "sha256Hash": "<hex>" }`. */
function persistedQueryOf(extensions: unknown): unknown {
  return typeof extensions === 'object' && extensions !== null ? (extensions as { persistedQuery?: unknown }).persistedQuery : undefined;
}

function refuse(reply: FastifyReply, code: string, message: string): FastifyReply {
  return reply.code(400).send({ data: null, errors: [{ message, extensions: { code } }] });
}

/** A staff token whose user is still active: a token outlives its user's deactivation until it expires. */
async function isStaffOfTheShop(context: MercuriusContext): Promise<boolean> {
  const { principal, services } = context.shop;
  return principal?.kind === 'staff' && (await isActiveStaff(services.prisma, principal.staffUserId));
}

/**
 * GRAPHQL_PERSISTED_QUERIES (docs/graphql-limits.md). A request that sends only
 * `extensions.persistedQuery.sha256Hash` gets the registered text as its `query` in preValidation,
 * before the rate limit's mutation charges and the query limits read it, so an operation sent by
 * hash is charged and limited exactly as if it had been sent whole. (Mercurius' own
 * persistedQueryProvider looks the hash up only in its route handler, after those.) In allowlist
 * mode a query whose text is not registered is refused before it is parsed, unless an active staff
 * user sends it: staff tools write their own queries, and every staff field checks its permission.
 */
export function servePersistedQueries(app: FastifyInstance, persisted: PersistedQueries, path = '/graphql'): void {
  const { queries } = persisted;
  app.addHook('preValidation', async (request, reply) => {
    if (request.routeOptions.url !== path) return;
    const found = paramsOf(request);
    const persistedQuery = persistedQueryOf(found?.extensions);
    if (found === undefined || persistedQuery === undefined || (typeof found.params.query === 'string' && found.params.query !== ''))
      return;
    const { version, sha256Hash: hash } = (persistedQuery ?? {}) as { version?: unknown; sha256Hash?: unknown };
    if (version !== 1 || typeof hash !== 'string') {
      return refuse(
        reply,
        'PERSISTED_QUERY_NOT_SUPPORTED',
        'extensions.persistedQuery must be {"version": 1, "sha256Hash": "<SHA-256 of the query in hex>"}',
      );
    }
    const query = queries.get(hash.toLowerCase());
    if (query === undefined)
      return refuse(reply, 'PERSISTED_QUERY_NOT_FOUND', `no operation is registered under the SHA-256 ${hash.slice(0, 64)}`);
    found.params.query = query;
  });
  if (persisted.mode !== 'allowlist') return;
  // The registered texts themselves: an allowed query (most often the very string set above) is found without hashing it.
  const registered = new Set(queries.values());
  app.graphql.addHook('preParsing', async (_schema, source, context) => {
    if (registered.has(source) || (await isStaffOfTheShop(context))) return;
    const hash = queryHash(source);
    throw new mercurius.ErrorWithProps(
      `this api runs only registered operations, and none is registered under this query's SHA-256 ${hash} (GRAPHQL_PERSISTED_QUERIES=allowlist)`,
      { code: 'PERSISTED_QUERY_NOT_ALLOWED', sha256: hash },
      400,
    );
  });
}
