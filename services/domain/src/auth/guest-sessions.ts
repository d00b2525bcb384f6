import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { DomainError } from '../kernel/index.ts';
import type { TokenSettings } from './token-settings.ts';

const RANDOM_BYTES = 16;
const TAG_BYTES = 16;
/** `g1.<16 random bytes>.<their HMAC-SHA256, first 16 bytes>`, both in unpadded base64url: 48 characters. */
const SHAPE = /^g1\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{22})$/;

// Derived once per secret, with a label of its own, so a session id's tag is never a token's signature.
const sessionKeys = new Map<string, Buffer>();

function tagOf(secret: string, random: Buffer): Buffer {
  let key = sessionKeys.get(secret);
  if (key === undefined) {
    key = createHmac('sha256', secret).update('shop guest session id').digest();
    sessionKeys.set(secret, key);
  }
  return createHmac('sha256', key).update(random).digest().subarray(0, TAG_BYTES);
}

/** A new guest session id, signed with the api's SECRET_KEY: 128 random bits nobody can guess, and a tag nobody can forge. */
export function issueGuestSessionId(settings: Pick<TokenSettings, 'secret'>): string {
  const random = randomBytes(RANDOM_BYTES);
  return `g1.${random.toString('base64url')}.${tagOf(settings.secret, random).toString('base64url')}`;
}

/** Whether this api issued the id, with SECRET_KEY or the key before it (SECRET_KEY_PREVIOUS). */
function wasIssued(id: string, settings: Pick<TokenSettings, 'secret' | 'previousSecret'>): boolean {
  const [, randomText, tagText] = SHAPE.exec(id) ?? [];
  if (randomText === undefined || tagText === undefined) return false;
  const random = Buffer.from(randomText, 'base64url');
  const tag = Buffer.from(tagText, 'base64url');
  // base64url leaves spare bits in the last character: only the one spelling of the bytes is the id.
  if (random.toString('base64url') !== randomText || tag.toString('base64url') !== tagText) return false;
  const secrets = settings.previousSecret === undefined ? [settings.secret] : [settings.secret, settings.previousSecret];
  return secrets.some((secret) => timingSafeEqual(tagOf(secret, random), tag));
}

/**
 * The guest session id a request sent (X-Session-ID), once checked: a guest's cart and orders are
 * found by it, so an id the api did not issue is refused rather than taken as a new guest.
 */
export function verifyGuestSessionId(id: string, settings: Pick<TokenSettings, 'secret' | 'previousSecret'>): string {
  if (wasIssued(id, settings)) return id;
  throw new DomainError(
    'BAD_USER_INPUT',
    'X-Session-ID was not issued by this api: start a guest session with the startGuestSession mutation and send the id it answers',
    {
      field: 'X-Session-ID',
      reason: 'not_issued',
    },
  );
}
