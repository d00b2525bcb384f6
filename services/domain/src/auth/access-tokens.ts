import { SignJWT, errors, jwtVerify, type JWTHeaderParameters, type JWTPayload } from 'jose';
import { keyIdOf } from '@shop/platform';
import { DomainError, idString, optionalId } from '../kernel/index.ts';
import { subjectOf, type Principal } from './principal.ts';
import type { TokenSettings } from './token-settings.ts';

export type AccessTokenRejection = 'expired' | 'bad_signature' | 'wrong_audience' | 'wrong_issuer' | 'not_yet_valid' | 'malformed';

const MESSAGES: Readonly<Record<AccessTokenRejection, string>> = {
  expired: 'access token expired',
  bad_signature: 'access token signature is invalid',
  wrong_audience: 'access token is meant for another audience',
  wrong_issuer: 'access token is from another issuer',
  not_yet_valid: 'access token is not valid yet',
  malformed: 'access token is malformed',
};

const ALGORITHM = 'HS256';
/** Far above any token we issue; bounds the work spent on garbage. */
const MAX_TOKEN_LENGTH = 4096;
const SUBJECT = /^(customer|staff):([1-9][0-9]{0,18})$/;
const ID = /^[1-9][0-9]{0,18}$/;

interface SigningKey {
  /** The token header's `kid`: which key signed it, so verification picks it among the current and the previous one. */
  readonly id: string;
  readonly key: Uint8Array;
}

// Derived once per secret: every authenticated request and beacon verifies a token.
const signingKeys = new Map<string, SigningKey>();

function signingKey(secret: string): SigningKey {
  let found = signingKeys.get(secret);
  if (found === undefined) {
    const key = new TextEncoder().encode(secret);
    found = { id: keyIdOf('shop access token signing key', key), key };
    signingKeys.set(secret, found);
  }
  return found;
}

/** The key a token's header names: the current or the previous one; a token without a kid predates key ids and was signed with the current key. */
function verificationKey(settings: TokenSettings): (header: JWTHeaderParameters) => Uint8Array {
  const current = signingKey(settings.secret);
  const previous = settings.previousSecret === undefined ? undefined : signingKey(settings.previousSecret);
  return (header) => {
    if (header.kid === undefined) return current.key;
    const named = [current, previous].find((candidate) => candidate?.id === header.kid);
    if (named === undefined) throw new errors.JWKSNoMatchingKey();
    return named.key;
  };
}

/** A signed JWT naming the principal; customers' tokens also carry their channel and customer group. */
export async function signAccessToken(principal: Principal, settings: TokenSettings): Promise<{ token: string; expiresAt: Date }> {
  const issuedAt = Math.floor(settings.now().getTime() / 1000);
  const expiresAt = issuedAt + settings.accessTokenSeconds;
  const claims: JWTPayload =
    principal.kind === 'customer'
      ? { channel_id: idString(principal.channelId), customer_group_id: optionalId(principal.customerGroupId) }
      : {};
  const { id, key } = signingKey(settings.secret);
  const token = await new SignJWT(claims)
    .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT', kid: id })
    .setSubject(subjectOf(principal))
    .setIssuer(settings.issuer)
    .setAudience(settings.audience)
    .setIssuedAt(issuedAt)
    .setExpirationTime(expiresAt)
    .sign(key);
  return { token, expiresAt: new Date(expiresAt * 1000) };
}

function rejection(error: unknown): AccessTokenRejection {
  if (error instanceof errors.JWTExpired) return 'expired';
  // A token signed with another algorithm (or none), or naming a key we do not hold, is not one of ours, exactly as with a wrong key.
  if (
    error instanceof errors.JWSSignatureVerificationFailed ||
    error instanceof errors.JOSEAlgNotAllowed ||
    error instanceof errors.JWKSNoMatchingKey
  ) {
    return 'bad_signature';
  }
  if (error instanceof errors.JWTClaimValidationFailed && error.reason === 'check_failed') {
    if (error.claim === 'aud') return 'wrong_audience';
    if (error.claim === 'iss') return 'wrong_issuer';
    if (error.claim === 'nbf' || error.claim === 'iat') return 'not_yet_valid';
  }
  return 'malformed';
}

const reject = (reason: AccessTokenRejection): DomainError => new DomainError('UNAUTHENTICATED', MESSAGES[reason], { reason });

function principalFrom(payload: JWTPayload): Principal | undefined {
  const [, kind, id] = SUBJECT.exec(payload.sub ?? '') ?? [];
  if (id === undefined) return undefined;
  if (kind === 'staff') return { kind: 'staff', staffUserId: BigInt(id) };
  const { channel_id: channel, customer_group_id: group } = payload;
  if (typeof channel !== 'string' || !ID.test(channel) || !(group === null || (typeof group === 'string' && ID.test(group))))
    return undefined;
  return { kind: 'customer', customerId: BigInt(id), channelId: BigInt(channel), customerGroupId: group === null ? null : BigInt(group) };
}

/**
 * The principal the token names. Any failure is a DomainError UNAUTHENTICATED whose message says
 * why in a few words and whose details.reason is an AccessTokenRejection; nothing else is thrown.
 * Roles and permissions are not in the token: they are read per request, so a change applies at once.
 */
export async function verifyAccessToken(token: string, settings: TokenSettings): Promise<Principal> {
  if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) throw reject('malformed');
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, verificationKey(settings), {
      algorithms: [ALGORITHM],
      issuer: settings.issuer,
      audience: settings.audience,
      currentDate: settings.now(),
      requiredClaims: ['sub', 'iat', 'exp'],
    }));
  } catch (error) {
    throw reject(rejection(error));
  }
  const principal = principalFrom(payload);
  if (principal === undefined) throw reject('malformed');
  return principal;
}
