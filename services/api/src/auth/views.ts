import type { StaffAccount, TokenPair } from '@shop/domain/auth';
import { iso } from '../graphql/iso.ts';

export const tokenPairView = (pair: TokenPair) => ({
  accessToken: pair.accessToken,
  accessTokenExpiresAt: iso(pair.accessTokenExpiresAt),
  refreshToken: pair.refreshToken,
  refreshTokenExpiresAt: iso(pair.refreshTokenExpiresAt),
});

export const staffView = (staff: StaffAccount, permissions: readonly string[]) => ({
  id: staff.id.toString(),
  email: staff.email,
  name: staff.name,
  active: staff.active,
  permissions,
});
