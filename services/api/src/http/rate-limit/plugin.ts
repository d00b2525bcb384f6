import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimitDecision, RateLimiter } from '@shop/platform';
import { clientAddressCaller, type CallerResolver } from './caller.ts';
import { rateLimitItem, rateLimitPolicyItem } from './headers.ts';

/** Tokens of one policy a request spends. */
export interface PolicyCharge {
  readonly policy: string;
  readonly cost: number;
  /** Whose bucket, when not the request's caller (e.g. the account a sign-in names). */
  readonly caller?: string;
}

export interface RateLimitOptions {
  readonly limiter: Pick<RateLimiter, 'take' | 'policy'>;
  /** The policy key of a request, from its method and URL (onRequest: the body is not read yet); undefined: not limited. */
  readonly policyFor: (request: FastifyRequest) => string | undefined;
  /** More charges once the body is parsed (preHandler), e.g. graphqlMutationCharges for GraphQL mutations. */
  readonly bodyPoliciesFor?: (request: FastifyRequest) => readonly PolicyCharge[];
  /** Who the bucket belongs to; the client address, believing every forwarder, by default. */
  readonly caller?: CallerResolver;
  /** Limited requests to this path are answered in the GraphQL error shape. */
  readonly graphqlPath?: string;
}

const RATE_LIMITED = 'RATE_LIMITED';

/**
 * For a route that charges its own rate limit (route option `config: { rateLimit: 'in handler' }`), e.g.
 * POST /track, which spends its token in the same cache round trip as its clicks' repeat keys
 * (ChargeAndClaim). The onRequest hook leaves such a route alone.
 */
export interface RouteRateLimits {
  readonly limiter: Pick<RateLimiter, 'take' | 'policy'>;
  /** The policy the request spends, as onRequest would have picked it; undefined: not limited. */
  policyOf(request: FastifyRequest): string | undefined;
  /** Who pays: the caller resolver of the plugin. */
  callerOf(request: FastifyRequest): string;
  /** Adds the decision's RateLimit headers; when it refused, answers 429 and returns true (the reply is sent). */
  apply(request: FastifyRequest, reply: FastifyReply, decision: RateLimitDecision | undefined): boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** 'in handler': the onRequest hook does not charge this route; its handler does, through app.rateLimits. */
    rateLimit?: 'in handler';
  }
  interface FastifyInstance {
    /** Set by rateLimit(): what a route that charges in its handler needs. */
    readonly rateLimits?: RouteRateLimits;
  }
}

function appendHeader(reply: FastifyReply, name: string, item: string): void {
  const existing = reply.getHeader(name);
  reply.header(name, existing === undefined ? item : `${String(existing)}, ${item}`);
}

/**
 * Token-bucket rate limiting for the app: `policyFor` picks the policy in an onRequest hook, before the body
 * is read, and `bodyPoliciesFor` may add charges in a preHandler. Every limited response carries
 * `RateLimit-Policy` (q, w) and `RateLimit` (r, t); a refused one is a 429 with `Retry-After` and the api's
 * error body: `{ "error": { "code": "RATE_LIMITED", "message" } }`, or on GraphQL
 * `{ "errors": [{ "message", "extensions": { "code": "RATE_LIMITED" } }] }`. When the cache is down every
 * request is allowed and only `RateLimit-Policy` is sent.
 */
export function rateLimit(app: FastifyInstance, options: RateLimitOptions): void {
  const callerOf = options.caller ?? clientAddressCaller();
  const graphqlPath = options.graphqlPath ?? '/graphql';

  const refuse = (request: FastifyRequest, reply: FastifyReply, decision: RateLimitDecision) => {
    const retryAfter = decision.retryAfterSeconds ?? 1;
    const message = `Too many requests (rate limit "${decision.policy.key}"): retry in ${retryAfter} s`;
    reply.code(429).header('retry-after', String(retryAfter));
    const isGraphql = request.url.split('?')[0] === graphqlPath;
    return reply.send(isGraphql ? { errors: [{ message, extensions: { code: RATE_LIMITED } }] } : { error: { code: RATE_LIMITED, message } });
  };

  /** Headers of a decision; true when it refused and the 429 was sent. */
  const apply = (request: FastifyRequest, reply: FastifyReply, decision: RateLimitDecision | undefined): boolean => {
    if (decision === undefined) return false;
    appendHeader(reply, 'ratelimit-policy', rateLimitPolicyItem(decision.policy));
    if (decision.result !== 'fail_open') appendHeader(reply, 'ratelimit', rateLimitItem(decision as Required<RateLimitDecision>));
    if (decision.allowed) return false;
    refuse(request, reply, decision);
    return true;
  };

  const charge = async (request: FastifyRequest, reply: FastifyReply, charges: readonly PolicyCharge[]) => {
    if (charges.length === 0) return undefined;
    const requestCaller = callerOf(request);
    for (const { policy, cost, caller } of charges) {
      if (apply(request, reply, await options.limiter.take(policy, caller ?? requestCaller, cost))) return reply;
    }
    return undefined;
  };

  app.decorate<RouteRateLimits>('rateLimits', { limiter: options.limiter, policyOf: options.policyFor, callerOf, apply });
  app.addHook('onRequest', async (request, reply) => {
    const policy = options.policyFor(request);
    // request.routeOptions builds an object at every read: only for the requests a policy applies to.
    if (policy === undefined || request.routeOptions.config.rateLimit === 'in handler') return undefined;
    return charge(request, reply, [{ policy, cost: 1 }]);
  });
  const bodyPoliciesFor = options.bodyPoliciesFor;
  if (bodyPoliciesFor !== undefined) {
    app.addHook('preHandler', async (request, reply) => charge(request, reply, bodyPoliciesFor(request)));
  }
}
