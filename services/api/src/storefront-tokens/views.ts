import type { StorefrontToken } from '@shop/domain/storefront-tokens';

export const storefrontTokenView = (token: StorefrontToken) => ({
  id: token.id.toString(),
  name: token.name,
  createdAt: token.createdAt.toISOString(),
  createdByStaffUserId: token.createdByStaffUserId?.toString() ?? null,
  lastUsedAt: token.lastUsedAt?.toISOString() ?? null,
  revokedAt: token.revokedAt?.toISOString() ?? null,
});
