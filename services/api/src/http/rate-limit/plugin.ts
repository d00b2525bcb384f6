import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler, preHandlerAsyncHookHandler } from 'fastify';
import type { RateLimitDecision, RateLimiter } from '@shop/platform';
import { CallerRefused, clientAddressCaller, type BffCaller, type BffResolver, type CallerResolver } from './caller.ts';
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
  /**
   * The policy of each limited route, by the URL the route was declared with (`/graphql`, `/track`):
   * a request spends the policy of the route the router matched, however its path was spelled.
   */
  readonly routePolicies: Readonly<Record<string, string>>;
  /** More charges of a GraphQL request once its body is parsed (preHandler of `graphqlPath`), e.g. graphqlMutationCharges. */
  readonly bodyPoliciesFor?: (request: FastifyRequest) => readonly PolicyCharge[];
  /** Who the bucket belongs to; the client address, believing every forwarder, by default. */
  readonly caller?: CallerResolver;
  /**
   * The BFF that sent a request, if any: its requests spend `bff:<policy>` per BFF, and `<policy>` only
   * for the shopper it names (who is then the caller of every other charge too).
   */
  readonly bff?: BffResolver;
  /** The GraphQL route: its limited requests are answered in the GraphQL error shape, and `bodyPoliciesFor` charges it. */
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
  /** The policy the request spends, as onRequest would have picked it; undefined: not limited (also a BFF's own request: its `bff:` policy was charged on arrival). */
  policyOf(request: FastifyRequest): string | undefined;
  /** Who pays: the shopper a BFF names, the BFF itself when it names none, else the caller resolver's answer. */
  callerOf(request: FastifyRequest): string;
  /** Adds the decision's RateLimit headers; when it refused, answers 429 and returns true (the reply is sent). */
  apply(request: FastifyRequest, reply: FastifyReply, decision: RateLimitDecision | undefined): boolean;
  /**
   * Charges `tokens` more of each policy the request's arrival charged (the GraphQL buckets, once the
   * operation's cost is known) and updates the RateLimit headers. Answers the refusing decision, with
   * Retry-After set, and leaves the answer to the caller; undefined when every charge was allowed.
   */
  chargeMore(request: FastifyRequest, reply: FastifyReply, tokens: number): Promise<RateLimitDecision | undefined>;
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

/** A policy charged by a request, with whose bucket. */
interface Charged {
  readonly policy: string;
  readonly caller: string;
}

/** What the router matched, worked out once per route when it is declared. */
interface LimitedRoute {
  readonly policy: string;
  /** Answered in the GraphQL error shape, and charged `bodyPoliciesFor`. */
  readonly graphql: boolean;
  /** `config: { rateLimit: 'in handler' }`: the route's handler pays its policy. */
  readonly inHandler: boolean;
}

/** What a request has been charged: its route, its arrival's charges, and the header items by policy (the latest decision of each). */
interface RequestLimits {
  readonly route: LimitedRoute;
  readonly arrival: Charged[];
  readonly items: Map<string, { readonly policy: string; readonly state?: string }>;
}

function setHeaders(reply: FastifyReply, items: RequestLimits['items']): void {
  const all = [...items.values()];
  reply.header('ratelimit-policy', all.map((item) => item.policy).join(', '));
  const states = all.flatMap((item) => (item.state === undefined ? [] : [item.state]));
  if (states.length > 0) reply.header('ratelimit', states.join(', '));
}

/** The 429's message: the policy, what it cost when more than a token, and when to retry. */
export function rateLimitedMessage(decision: RateLimitDecision, charged: string | undefined): string {
  const retry = `retry in ${decision.retryAfterSeconds ?? 1} s`;
  return `Too many requests (rate limit "${decision.policy.key}"): ${charged === undefined ? retry : `${charged}; ${retry}`}`;
}

/** A route option's hooks as a list: none, one, or several. */
function hooksOf<Hook>(hooks: Hook | Hook[] | undefined): Hook[] {
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? hooks : [hooks];
}

/**
 * Token-bucket rate limiting for the app. Each route declared after this call with a policy in
 * `routePolicies` gets its own onRequest hook, which charges the policy before the body is read, and
 * the GraphQL route a preHandler for `bodyPoliciesFor`'s charges: the policy belongs to the route the
 * router matched (`/gr%61phql` is `/graphql`), found once when the route is declared, so a request
 * costs no route lookup. Every limited response carries
 * `RateLimit-Policy` (q, w) and `RateLimit` (r, t); a refused one is a 429 with `Retry-After` and the api's
 * error body: `{ "error": { "code": "RATE_LIMITED", "message" } }`, or on GraphQL
 * `{ "errors": [{ "message", "extensions": { "code": "RATE_LIMITED" } }] }`. When the cache is down every
 * request is allowed and only `RateLimit-Policy` is sent.
 */
export function rateLimit(app: FastifyInstance, options: RateLimitOptions): void {
  const addressOf = options.caller ?? clientAddressCaller();
  const graphqlPath = options.graphqlPath ?? '/graphql';
  const bffs = new WeakMap<FastifyRequest, BffCaller>();
  const callerOf = (request: FastifyRequest): string => {
    const bff = bffs.get(request);
    return bff === undefined ? addressOf(request) : (bff.shopper ?? bff.id);
  };
  const limitsOf = new WeakMap<FastifyRequest, RequestLimits>();
  const policyOf = (request: FastifyRequest): string | undefined => {
    const bff = bffs.get(request);
    return bff !== undefined && bff.shopper === undefined ? undefined : limitsOf.get(request)?.route.policy;
  };
  const sendError = (reply: FastifyReply, graphql: boolean, code: string, message: string) =>
    reply.send(graphql ? { errors: [{ message, extensions: { code } }] } : { error: { code, message } });

  /** Headers of a decision; false when it refused (Retry-After set, nothing sent). */
  const record = (request: FastifyRequest, reply: FastifyReply, decision: RateLimitDecision): boolean => {
    const items = limitsOf.get(request)?.items;
    if (items === undefined) throw new Error(`${request.method} ${request.url} is charged a rate limit, but its route has no policy`);
    const state = decision.result === 'fail_open' ? undefined : rateLimitItem(decision as Required<RateLimitDecision>);
    // A later charge of the same policy replaces the earlier item: the bucket's state now is what counts.
    items.set(decision.policy.key, { policy: rateLimitPolicyItem(decision.policy), ...(state === undefined ? {} : { state }) });
    setHeaders(reply, items);
    if (decision.allowed) return true;
    reply.code(429).header('retry-after', String(decision.retryAfterSeconds ?? 1));
    return false;
  };

  /** Headers of a decision; true when it refused and the 429 was sent. */
  const apply = (request: FastifyRequest, reply: FastifyReply, decision: RateLimitDecision | undefined, cost = 1): boolean => {
    if (decision === undefined || record(request, reply, decision)) return false;
    const graphql = limitsOf.get(request)?.route.graphql ?? false;
    sendError(reply, graphql, RATE_LIMITED, rateLimitedMessage(decision, cost > 1 ? `this request costs ${cost} tokens` : undefined));
    return true;
  };

  const charge = async (request: FastifyRequest, reply: FastifyReply, charges: readonly PolicyCharge[]) => {
    if (charges.length === 0) return undefined;
    const requestCaller = callerOf(request);
    for (const { policy, cost, caller } of charges) {
      if (apply(request, reply, await options.limiter.take(policy, caller ?? requestCaller, cost), cost)) return reply;
    }
    return undefined;
  };

  const chargeMore = async (request: FastifyRequest, reply: FastifyReply, tokens: number) => {
    if (tokens <= 0) return undefined;
    for (const { policy, caller } of limitsOf.get(request)?.arrival ?? []) {
      const decision = await options.limiter.take(policy, caller, tokens);
      if (decision !== undefined && !record(request, reply, decision)) return decision;
    }
    return undefined;
  };

  /** What a request's arrival spends: the BFF's bucket, and the route's policy for the shopper (or the client address). */
  const arrivalCharges = (request: FastifyRequest, policy: string, bff: BffCaller | undefined): Charged[] => {
    if (bff === undefined) return [{ policy, caller: addressOf(request) }];
    const own = { policy: `bff:${policy}`, caller: bff.id };
    return bff.shopper === undefined ? [own] : [own, { policy, caller: bff.shopper }];
  };

  const arrive = async (route: LimitedRoute, request: FastifyRequest, reply: FastifyReply) => {
    const limits: RequestLimits = { route, arrival: [], items: new Map() };
    limitsOf.set(request, limits);
    let bff: BffCaller | undefined;
    try {
      bff = await options.bff?.(request);
    } catch (error) {
      if (!(error instanceof CallerRefused)) throw error;
      if (error.challenge !== undefined) reply.header('www-authenticate', error.challenge);
      return sendError(reply.code(error.status), route.graphql, error.code, error.message);
    }
    if (bff !== undefined) bffs.set(request, bff);
    // A route that charges in its handler pays its policy there (policyOf, callerOf); only the BFF's bucket is charged here.
    const charges = arrivalCharges(request, route.policy, bff).filter((charged) => !route.inHandler || charged.policy !== route.policy);
    limits.arrival.push(...charges);
    return charge(
      request,
      reply,
      charges.map((charged) => ({ ...charged, cost: 1 })),
    );
  };

  app.decorate<RouteRateLimits>('rateLimits', { limiter: options.limiter, policyOf, callerOf, apply, chargeMore });
  const bodyPoliciesFor = options.bodyPoliciesFor;
  const ours = new WeakSet<object>();
  app.addHook('onRoute', (routeOptions) => {
    const policy = Object.hasOwn(options.routePolicies, routeOptions.url) ? options.routePolicies[routeOptions.url] : undefined;
    const onRequest = hooksOf(routeOptions.onRequest);
    // A HEAD route Fastify adds for a GET one starts from the GET's options, hooks included.
    if (policy === undefined || onRequest.some((hook) => ours.has(hook))) return;
    const route: LimitedRoute = {
      policy,
      graphql: routeOptions.url === graphqlPath,
      inHandler: routeOptions.config?.rateLimit === 'in handler',
    };
    const limitOnArrival: onRequestAsyncHookHandler = (request, reply) => arrive(route, request, reply);
    ours.add(limitOnArrival);
    routeOptions.onRequest = [...onRequest, limitOnArrival];
    if (route.graphql && bodyPoliciesFor !== undefined) {
      const limitBody: preHandlerAsyncHookHandler = (request, reply) => charge(request, reply, bodyPoliciesFor(request));
      routeOptions.preHandler = [...hooksOf(routeOptions.preHandler), limitBody];
    }
  });
}
