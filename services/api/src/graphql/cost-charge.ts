import mercurius from 'mercurius';
import type { FastifyReply } from 'fastify';
import { rateLimitedMessage } from '../http/rate-limit/index.ts';

/**
 * One rate-limit token per this many cost points, at least one (docs/rate-limiting.md): a product page
 * (cost 4) or the cart (6) is one token, a listing of 20 products (101) two, the largest page of 100
 * products (501) six, so the `graphql` policy's 20 tokens a second still mean about 20 page queries.
 */
export const COST_PER_TOKEN = 100;

export function tokensForCost(cost: number): number {
  return Math.max(1, Math.ceil(cost / COST_PER_TOKEN));
}

/**
 * Charges the GraphQL buckets what the operation costs beyond the one token its arrival took (before
 * the body was read), so a request spends tokensForCost(cost) in all. A bucket that cannot pay is a
 * 429 naming the cost and the tokens; nothing of the operation runs. An app without rate limits
 * charges nothing.
 */
export async function chargeQueryCost(reply: FastifyReply, cost: number): Promise<void> {
  const limits = reply.server.rateLimits;
  if (limits === undefined) return;
  const tokens = tokensForCost(cost);
  const refused = await limits.chargeMore(reply.request, reply, tokens - 1);
  if (refused === undefined) return;
  const message = rateLimitedMessage(refused, `the query costs ${cost}, ${tokens} tokens at one per ${COST_PER_TOKEN} cost points`);
  throw new mercurius.ErrorWithProps(message, { code: 'RATE_LIMITED', cost, tokens }, 429);
}
