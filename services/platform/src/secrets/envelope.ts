import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { MasterKeyring } from './keyring.ts';

/** Where a value is stored; bound to its ciphertext, so a value copied to another row or column does not decrypt. */
export interface SecretPlace {
  readonly table: string;
  readonly column: string;
  /** The row's stable identity (its primary key as text). */
  readonly row: string;
}

/** What is stored: the id of the master key that encrypted it and the envelope. */
export interface SealedSecret {
  readonly keyId: string;
  readonly ciphertext: Buffer;
}

/** A stored value that this process cannot decrypt; says which and why, never the value. */
export class SecretUnreadableError extends Error {
  constructor(place: SecretPlace, keyId: string, why: string) {
    super(`${place.table}.${place.column} of ${JSON.stringify(place.row)} (key id ${keyId}) cannot be decrypted: ${why}`);
    this.name = 'SecretUnreadableError';
  }
}

// Envelope layout: version (1 byte) | nonce (12) | AES-256-GCM ciphertext | tag (16).
const VERSION = 1;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const CIPHER = 'aes-256-gcm';

/** The associated data: the envelope version, the key id and the place, unambiguously joined. */
const associatedData = (keyId: string, place: SecretPlace): Buffer =>
  Buffer.from(JSON.stringify([VERSION, keyId, place.table, place.column, place.row]));

/** Encrypts under the current key with a fresh random nonce. */
export function sealSecret(keyring: MasterKeyring, plaintext: string, place: SecretPlace): SealedSecret {
  const { id, key } = keyring.current;
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv(CIPHER, key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(associatedData(id, place));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { keyId: id, ciphertext: Buffer.concat([Buffer.of(VERSION), nonce, body, cipher.getAuthTag()]) };
}

/** Decrypts with the key the value names; throws SecretUnreadableError for an unknown key or a value that fails authentication. */
export function openSecret(keyring: MasterKeyring, sealed: SealedSecret, place: SecretPlace): string {
  const master = keyring.byId(sealed.keyId);
  if (master === undefined)
    throw new SecretUnreadableError(place, sealed.keyId, 'its key is neither SECRETS_MASTER_KEY nor in SECRETS_MASTER_KEY_ROTATING_FROM');
  const { ciphertext } = sealed;
  if (ciphertext.length < 1 + NONCE_BYTES + TAG_BYTES || ciphertext[0] !== VERSION) {
    throw new SecretUnreadableError(place, sealed.keyId, 'not an envelope of version 1');
  }
  const nonce = ciphertext.subarray(1, 1 + NONCE_BYTES);
  const tag = ciphertext.subarray(ciphertext.length - TAG_BYTES);
  const decipher = createDecipheriv(CIPHER, master.key, nonce, { authTagLength: TAG_BYTES });
  decipher.setAAD(associatedData(sealed.keyId, place));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(ciphertext.subarray(1 + NONCE_BYTES, ciphertext.length - TAG_BYTES)), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    throw new SecretUnreadableError(place, sealed.keyId, 'authentication failed (altered, or copied from another place)');
  }
}
