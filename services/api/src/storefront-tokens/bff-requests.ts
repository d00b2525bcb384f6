import type { FastifyInstance } from 'fastify';
import { plainAddress } from '../http/client-address.ts';
import { header } from '../auth/request-auth.ts';
import { CallerRefused, type BffResolver } from '../http/rate-limit/index.ts';
import type { AppPlatform } from '../area-plugin.ts';
import { StorefrontTokens } from './token-cache.ts';

export const STOREFRONT_TOKEN_HEADER = 'x-storefront-token';
export const SHOPPER_IP_HEADER = 'x-shopper-ip';

declare module 'fastify' {
  interface FastifyInstance {
    /** The storefront access tokens this process accepts (bffRequests). */
    readonly storefrontTokens?: StorefrontTokens;
  }
}

/**
 * The BFFs behind requests (docs/rate-limiting.md): `X-Storefront-Token` names one, and only then is
 * `X-Shopper-IP` believed, as the address of the shopper the BFF sends for. A token that is not
 * accepted (unknown, revoked) is a 401, never a request from an anonymous caller; a shopper header
 * that is no IP address a 400. Decorates the app with the token cache (`app.storefrontTokens`).
 */
export function bffRequests(app: FastifyInstance, platform: Pick<AppPlatform, 'database' | 'logger'>): BffResolver {
  const tokens = new StorefrontTokens(platform.database.prisma, app.log);
  app.decorate('storefrontTokens', tokens);
  app.addHook('onClose', () => tokens.close());
  return async (request) => {
    const token = header(request, STOREFRONT_TOKEN_HEADER);
    if (token === undefined) return undefined;
    const accepted = await tokens.verify(token);
    if (accepted === undefined) {
      throw new CallerRefused(
        401,
        'X-Storefront-Token is not an accepted storefront token (unknown or revoked): staff create one with createStorefrontToken',
        'X-Storefront-Token',
      );
    }
    const shopperHeader = header(request, SHOPPER_IP_HEADER);
    if (shopperHeader === undefined) return { id: accepted.bucketKey, shopper: undefined };
    const shopper = plainAddress(shopperHeader);
    if (shopper === undefined)
      throw new CallerRefused(
        400,
        `X-Shopper-IP must be the shopper's IP address (IPv4 or IPv6), not ${JSON.stringify(shopperHeader.slice(0, 64))}`,
      );
    return { id: accepted.bucketKey, shopper };
  };
}
