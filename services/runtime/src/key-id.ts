import { createHash } from 'node:crypto';

/**
 * A short public name for a key, derived from it, so an operator never has to name keys and a
 * stored value or a token can say which key it needs. The label keeps the ids of one key used for
 * two purposes apart; a truncated SHA-256 of a 256-bit random key says nothing usable about it.
 * Here rather than in @shop/platform because the Shop operator reports the ids of the keys it generates.
 */
export function keyIdOf(label: string, key: Uint8Array): string {
  return createHash('sha256').update(label).update('\0').update(key).digest('base64url').slice(0, 16);
}

const MASTER_KEY_LABEL = 'shop stored secrets master key';

/** The id of a SECRETS_MASTER_KEY, as stored beside every ciphertext and printed by `npm run secrets:status`. */
export const masterKeyIdOf = (key: Uint8Array): string => keyIdOf(MASTER_KEY_LABEL, key);
