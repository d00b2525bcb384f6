import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { DomainError } from '../errors/domain-error.ts';

export const PASSWORD_MIN_LENGTH = 10;
/** Also bounds the work one login attempt can cost. */
export const PASSWORD_MAX_LENGTH = 200;

/** The OWASP Password Storage Cheat Sheet's scrypt minimum: N = 2^17 (128 MiB), r = 8, p = 1. */
const COST = { N: 131_072, r: 8, p: 1 } as const;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
/** Refuse stored parameters beyond this, so a corrupted row cannot make one verification exhaust memory. */
const MAX_N = 1 << 20;

/**
 * One derivation at a time per process: each holds 128 × N × r bytes (128 MiB at today's cost), and
 * a burst of sign-ins must not multiply that past the container's memory limit.
 */
let derivations: Promise<unknown> = Promise.resolve();

function derive(password: string, salt: Buffer, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r };
  const run = () =>
    new Promise<Buffer>((resolve, reject) => {
      scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (error, key) => (error ? reject(error) : resolve(key)));
    });
  const key = derivations.then(run, run);
  derivations = key.catch(() => undefined);
  return key;
}

/** Throws BAD_USER_INPUT when the password is too short or too long; lengths count characters, not bytes. */
export function assertPasswordPolicy(password: string): void {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) {
    throw new DomainError('BAD_USER_INPUT', `password must be at least ${PASSWORD_MIN_LENGTH} characters`, { field: 'password' });
  }
  if (length > PASSWORD_MAX_LENGTH) {
    throw new DomainError('BAD_USER_INPUT', `password must be at most ${PASSWORD_MAX_LENGTH} characters`, { field: 'password' });
  }
}

/** `scrypt$N$r$p$salt$hash`, salt and hash in base64: the parameters travel with the hash, so the cost can rise later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64'), key.toString('base64')].join('$');
}

interface StoredHash {
  readonly cost: { N: number; r: number; p: number };
  readonly salt: Buffer;
  readonly key: Buffer;
}

function parse(stored: string): StoredHash | undefined {
  const [scheme, n, r, p, salt, key, ...rest] = stored.split('$');
  if (scheme !== 'scrypt' || salt === undefined || key === undefined || rest.length > 0) return undefined;
  const [N, R, P] = [Number(n), Number(r), Number(p)];
  const valid = Number.isInteger(N) && N > 1 && N <= MAX_N && (N & (N - 1)) === 0 && Number.isInteger(R) && R >= 1 && R <= 32 && Number.isInteger(P) && P >= 1 && P <= 16;
  if (!valid) return undefined;
  return { cost: { N, r: R, p: P }, salt: Buffer.from(salt, 'base64'), key: Buffer.from(key, 'base64') };
}

/** Constant-time comparison; false for a wrong password and for a stored value that is not a scrypt hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parse(stored);
  if (parsed === undefined || parsed.key.length !== KEY_BYTES) return false;
  const key = await derive(password, parsed.salt, parsed.cost);
  return timingSafeEqual(key, parsed.key);
}

/**
 * A new hash at today's cost when `stored` (which `password` was just verified against) was made
 * at a lower one; undefined when it is current. Sign-ins call it, so old hashes are upgraded at the
 * next successful login.
 */
export async function upgradedHash(password: string, stored: string): Promise<string | undefined> {
  const cost = parse(stored)?.cost;
  const current = cost !== undefined && cost.N >= COST.N && cost.r >= COST.r && cost.p >= COST.p;
  return current ? undefined : hashPassword(password);
}

let dummyHash: Promise<string> | undefined;

/**
 * Verifies against the account's hash, or, when there is no account, against a throwaway hash and
 * returns false: an unknown email then costs as much time as a wrong password and is not revealed.
 */
export async function checkPassword(password: string, stored: string | undefined): Promise<boolean> {
  if (stored !== undefined) return verifyPassword(password, stored);
  dummyHash ??= hashPassword(randomBytes(SALT_BYTES).toString('base64'));
  await verifyPassword(password, await dummyHash);
  return false;
}
