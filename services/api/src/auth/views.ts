import type { StaffAccount, TokenPair } from '@shop/domain/auth';

export const tokenPairView = (pair: TokenPair) => ({
  accessToken: pair.accessToken,
  accessTokenExpiresAt: pair.accessTokenExpiresAt.toISOString(),
  refreshToken: pair.refreshToken,
  refreshTokenExpiresAt: pair.refreshTokenExpiresAt.toISOString(),
});

export const staffView = (staff: StaffAccount, permissions: readonly string[]) => ({
  id: staff.id.toString(),
  email: staff.email,
  name: staff.name,
  active: staff.active,
  permissions,
});
