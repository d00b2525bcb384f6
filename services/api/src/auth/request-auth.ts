import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { verifyAccessToken, verifyGuestSessionId, type Principal, type TokenSettings } from '@shop/domain/auth';
import { DomainError } from '@shop/domain/kernel';

/** Who sent a request and for which shopper and channel, as its headers say. */
export interface RequestIdentity {
  /** From `Authorization: Bearer <access token>`; null without the header. */
  readonly principal: Principal | null;
  /** `X-Session-ID`, one the api issued (startGuestSession): a guest's cart and orders belong to it. */
  readonly sessionId: string | undefined;
  /** `X-Channel-ID`: a channel id or code; a signed-in customer's channel comes from the token instead. */
  readonly channel: string | undefined;
}

const CHANNEL_MAX_LENGTH = 50;
const BEARER = /^Bearer[ ]+(\S+)\s*$/i;

const ANONYMOUS: RequestIdentity = { principal: null, sessionId: undefined, channel: undefined };
const identities = new WeakMap<FastifyRequest, RequestIdentity>();

/** The identity the preHandler established; anonymous for requests it did not see. */
export function identityOf(request: FastifyRequest): RequestIdentity {
  return identities.get(request) ?? ANONYMOUS;
}

/** A header's value, trimmed (a repeated one joined by commas); undefined when absent or blank. */
export function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  const text = (Array.isArray(value) ? value.join(',') : value)?.trim();
  return text === undefined || text === '' ? undefined : text;
}

function optionalHeader(request: FastifyRequest, name: string, label: string, max: number): string | undefined {
  const value = header(request, name);
  if (value !== undefined && value.length > max)
    throw new DomainError('BAD_USER_INPUT', `${label} must be at most ${max} characters`, { field: label });
  return value;
}

async function principalOf(request: FastifyRequest, settings: TokenSettings): Promise<Principal | null> {
  const authorization = header(request, 'authorization');
  if (authorization === undefined) return null;
  const token = BEARER.exec(authorization)?.[1];
  if (token === undefined)
    throw new DomainError('UNAUTHENTICATED', 'the Authorization header must be "Bearer <access token>"', { reason: 'malformed' });
  return verifyAccessToken(token, settings);
}

const STATUS: Readonly<Record<string, number>> = { UNAUTHENTICATED: 401, BAD_USER_INPUT: 400 };

function refuse(reply: FastifyReply, error: DomainError): FastifyReply {
  const status = STATUS[error.code] ?? 400;
  if (status === 401) reply.header('www-authenticate', `Bearer error="invalid_token"`);
  return reply.code(status).send({ data: null, errors: [{ message: error.message, extensions: { ...error.details, code: error.code } }] });
}

/**
 * Reads the identity headers of every /graphql request before GraphQL runs. A token that is sent
 * but not valid (expired, tampered, for another audience) fails the whole request with 401 and
 * UNAUTHENTICATED, so the client refreshes instead of silently browsing as a guest; a session id the
 * api did not issue fails it with 400, so nobody reaches a guest's cart by guessing its id.
 */
export function authenticateGraphqlRequests(app: FastifyInstance, settings: TokenSettings, path = '/graphql'): void {
  app.addHook('preHandler', async (request, reply) => {
    if (request.routeOptions.url !== path) return;
    try {
      const sent = header(request, 'x-session-id');
      const sessionId = sent === undefined ? undefined : verifyGuestSessionId(sent, settings);
      const channel = optionalHeader(request, 'x-channel-id', 'X-Channel-ID', CHANNEL_MAX_LENGTH);
      identities.set(request, { principal: await principalOf(request, settings), sessionId, channel });
    } catch (error) {
      if (error instanceof DomainError) return refuse(reply, error);
      throw error;
    }
  });
}
