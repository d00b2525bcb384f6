import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const CODES_BY_STATUS: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  406: 'NOT_ACCEPTABLE',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  503: 'UNAVAILABLE',
};

export interface ErrorBody {
  readonly status: number;
  readonly code: string;
  readonly message: string;
}

/** Client errors keep their message; server errors are logged whole and answered without internals. */
export function describeError(error: FastifyError): ErrorBody {
  const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 500;
  if (status >= 500) return { status, code: CODES_BY_STATUS[status] ?? 'INTERNAL', message: 'Internal server error' };
  return { status, code: CODES_BY_STATUS[status] ?? 'BAD_REQUEST', message: error.message };
}

function isGraphqlRequest(request: FastifyRequest): boolean {
  return request.url === '/graphql' || request.url.startsWith('/graphql?');
}

function send(request: FastifyRequest, reply: FastifyReply, body: ErrorBody): FastifyReply {
  reply.code(body.status);
  if (isGraphqlRequest(request)) {
    return reply.send({ errors: [{ message: body.message, extensions: { code: body.code } }] });
  }
  return reply.send({ error: { code: body.code, message: body.message } });
}

/**
 * REST errors answer `{ "error": { "code", "message" } }`; errors on /graphql that happen before
 * GraphQL runs (unparseable JSON, wrong content type) answer in the GraphQL error shape.
 */
export function answerErrorsAsJson(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const body = describeError(error);
    if (body.status >= 500) request.log.error({ err: error }, 'request failed');
    return send(request, reply, body);
  });
  app.setNotFoundHandler((request, reply) =>
    send(request, reply, { status: 404, code: 'NOT_FOUND', message: `No route for ${request.method} ${request.url.split('?')[0]}` }),
  );
}
