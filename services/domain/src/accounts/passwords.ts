import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { DomainError } from '../kernel/index.ts';

export const PASSWORD_MIN_LENGTH = 10;
/** Also bounds the work one login attempt can cost. */
export const PASSWORD_MAX_LENGTH = 200;

/** The OWASP Password Storage Cheat Sheet's scrypt minimum: N = 2^17 (128 MiB), r = 8, p = 1. */
const COST = { N: 131_072, r: 8, p: 1 } as const;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
/** Refuse stored parameters beyond this, so a corrupted row cannot make one verification exhaust memory. */
const MAX_N = 1 << 20;

/** A password check or hash found the process's derivation queue full: nothing was checked; retry later. */
export class PasswordQueueFullError extends DomainError {
  readonly retryAfterSeconds: number;

  constructor(retryAfterSeconds: number) {
    super('UNAVAILABLE', `too many password checks are waiting on this server; retry in ${retryAfterSeconds} s`, { retryAfterSeconds });
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * One derivation at a time per process: each holds 128 × N × r bytes (128 MiB at today's cost), and
 * a burst of sign-ins must not multiply that past the container's memory limit. Beyond `max`
 * admitted (running and waiting), a derivation is refused at once rather than queued behind minutes
 * of others. Unbounded until the process sets a bound: the api does (PASSWORD_QUEUE_MAX), commands and seeds need none.
 */
const queue = { tail: Promise.resolve() as Promise<unknown>, admitted: 0, max: Infinity, lastMs: 300 };

/** Sets how many derivations this process admits at once. */
export function limitPasswordQueue(max: number): void {
  queue.max = max;
}

/** Until the admitted derivations have run, by the last one's duration. */
const drainSeconds = (): number => Math.max(1, Math.ceil((queue.admitted * queue.lastMs) / 1000));

function derive(password: string, salt: Buffer, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  if (queue.admitted >= queue.max) return Promise.reject(new PasswordQueueFullError(drainSeconds()));
  queue.admitted += 1;
  const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r };
  const run = () =>
    new Promise<Buffer>((resolve, reject) => {
      const started = performance.now();
      scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (error, key) => {
        queue.lastMs = performance.now() - started;
        if (error) reject(error);
        else resolve(key);
      });
    });
  const key = queue.tail.then(run, run).finally(() => (queue.admitted -= 1));
  queue.tail = key.catch(() => undefined);
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
  const valid =
    Number.isInteger(N) &&
    N > 1 &&
    N <= MAX_N &&
    (N & (N - 1)) === 0 &&
    Number.isInteger(R) &&
    R >= 1 &&
    R <= 32 &&
    Number.isInteger(P) &&
    P >= 1 &&
    P <= 16;
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
  // A refused first hash (a full queue) is made again by the next caller, not kept as a rejection.
  dummyHash ??= hashPassword(randomBytes(SALT_BYTES).toString('base64')).catch((error: unknown) => {
    dummyHash = undefined;
    throw error;
  });
  await verifyPassword(password, await dummyHash);
  return false;
}
