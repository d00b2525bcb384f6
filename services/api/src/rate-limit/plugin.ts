import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimitDecision, RateLimiter } from '@shop/platform';
import { clientAddressCaller, type CallerResolver } from './caller.ts';
import { rateLimitItem, rateLimitPolicyItem } from './headers.ts';

/** Tokens of one policy a request spends. */
export interface PolicyCharge {
  readonly policy: string;
  readonly cost: number;
}

export interface RateLimitOptions {
  readonly limiter: Pick<RateLimiter, 'take'>;
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

  const charge = async (request: FastifyRequest, reply: FastifyReply, charges: readonly PolicyCharge[]) => {
    if (charges.length === 0) return undefined;
    const caller = callerOf(request);
    for (const { policy, cost } of charges) {
      const decision = await options.limiter.take(policy, caller, cost);
      if (decision === undefined) continue;
      appendHeader(reply, 'ratelimit-policy', rateLimitPolicyItem(decision.policy));
      if (decision.result !== 'fail_open') appendHeader(reply, 'ratelimit', rateLimitItem(decision as Required<RateLimitDecision>));
      if (!decision.allowed) return refuse(request, reply, decision);
    }
    return undefined;
  };

  app.addHook('onRequest', async (request, reply) => {
    const policy = options.policyFor(request);
    if (policy !== undefined) return charge(request, reply, [{ policy, cost: 1 }]);
  });
  const bodyPoliciesFor = options.bodyPoliciesFor;
  if (bodyPoliciesFor !== undefined) {
    app.addHook('preHandler', async (request, reply) => charge(request, reply, bodyPoliciesFor(request)));
  }
}
