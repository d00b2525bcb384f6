import type { StorefrontToken } from '@shop/domain/storefront-tokens';
import { iso } from '../graphql/iso.ts';

export const storefrontTokenView = (token: StorefrontToken) => ({
  id: token.id.toString(),
  name: token.name,
  createdAt: iso(token.createdAt),
  createdByStaffUserId: token.createdByStaffUserId?.toString() ?? null,
  lastUsedAt: iso(token.lastUsedAt),
  revokedAt: iso(token.revokedAt),
});
