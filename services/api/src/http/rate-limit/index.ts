export { rateLimit, rateLimitedMessage, type RateLimitOptions, type PolicyCharge } from './plugin.ts';
export { CallerRefused, clientAddressCaller, type BffCaller, type BffResolver, type CallerResolver } from './caller.ts';
export { graphqlMutationCharges, type GraphqlChargeOptions } from './graphql-charges.ts';
export { rateLimitItem, rateLimitPolicyItem } from './headers.ts';
