export { type AccessTokenRejection, signAccessToken, verifyAccessToken } from './access-tokens.ts';
export { issueGuestSessionId, verifyGuestSessionId } from './guest-sessions.ts';
export { authorizeStaff, CORE_PERMISSIONS, holdsPermission, upsertPermissions } from './permissions.ts';
export { customerPrincipal, type CustomerPrincipal, type Principal, staffPrincipal, type StaffPrincipal } from './principal.ts';
export { pruneFinishedSignIns, revokeRefreshToken } from './refresh-tokens.ts';
export { ensureRole } from './roles.ts';
export { authenticateStaff, createStaffUser, ensureAdmin, isActiveStaff, signedInStaff, type StaffAccount } from './staff.ts';
export { DEFAULT_TOKEN_SETTINGS, type TokenSettings, tokenSettings } from './token-settings.ts';
export { issueTokens, refreshTokens, type TokenPair } from './tokens.ts';
