import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openSecret, sealSecret, SecretUnreadableError, type SealedSecret, type SecretPlace } from '../../src/secrets/envelope.ts';
import { masterKeyring } from '../../src/secrets/keyring.ts';

const oldKey = randomBytes(32);
const newKey = randomBytes(32);
const place: SecretPlace = { table: 'stored_secrets', column: 'ciphertext', row: 'payments.gateway_api_key' };
const plaintext = 'sk_live_51Hx…ünïcode';

const flipped = (buffer: Buffer, index: number): Buffer => {
  const copy = Buffer.from(buffer);
  copy[index] = (copy[index] as number) ^ 0x01;
  return copy;
};

describe('the secret envelope', () => {
  it('round-trips under the current key and names it', () => {
    const keyring = masterKeyring(newKey);
    const sealed = sealSecret(keyring, plaintext, place);
    expect(sealed.keyId).toBe(keyring.current.id);
    expect(sealed.ciphertext.includes(Buffer.from(plaintext))).toBe(false);
    expect(openSecret(keyring, sealed, place)).toBe(plaintext);
  });

  it('uses a fresh nonce for every value: the same plaintext seals differently each time', () => {
    const keyring = masterKeyring(newKey);
    const first = sealSecret(keyring, plaintext, place).ciphertext;
    const second = sealSecret(keyring, plaintext, place).ciphertext;
    expect(first.subarray(1, 13).equals(second.subarray(1, 13))).toBe(false);
    expect(first.equals(second)).toBe(false);
  });

  it('reads a value of the key rotated from, and writes under the new one', () => {
    const before = sealSecret(masterKeyring(oldKey), plaintext, place);
    const rotated = masterKeyring(newKey, [oldKey]);
    expect(openSecret(rotated, before, place)).toBe(plaintext);
    expect(sealSecret(rotated, plaintext, place).keyId).toBe(rotated.current.id);
    expect(rotated.current.id).not.toBe(before.keyId);
  });

  it('refuses a value whose key this process does not hold, naming the key id but not the value', () => {
    const sealed = sealSecret(masterKeyring(oldKey), plaintext, place);
    const opening = () => openSecret(masterKeyring(newKey), sealed, place);
    expect(opening).toThrow(SecretUnreadableError);
    expect(opening).toThrow(`key id ${sealed.keyId}`);
    expect(opening).toThrow(/SECRETS_MASTER_KEY_ROTATING_FROM/);
  });

  it.each([
    ['the version byte', 0],
    ['the nonce', 5],
    ['the ciphertext', 14],
    ['the tag', -1],
  ])('rejects a value with a bit flipped in %s', (_part, index) => {
    const keyring = masterKeyring(newKey);
    const sealed = sealSecret(keyring, plaintext, place);
    const at = index < 0 ? sealed.ciphertext.length + index : index;
    expect(() => openSecret(keyring, { ...sealed, ciphertext: flipped(sealed.ciphertext, at) }, place)).toThrow(SecretUnreadableError);
  });

  it('rejects a truncated value', () => {
    const keyring = masterKeyring(newKey);
    const sealed = sealSecret(keyring, plaintext, place);
    expect(() => openSecret(keyring, { ...sealed, ciphertext: sealed.ciphertext.subarray(0, 20) }, place)).toThrow(SecretUnreadableError);
  });

  it.each([
    ['another row', { ...place, row: 'payments.webhook_secret' }],
    ['another column', { ...place, column: 'previous_ciphertext' }],
    ['another table', { ...place, table: 'webhooks' }],
  ])('rejects a value swapped into %s', (_where, elsewhere) => {
    const keyring = masterKeyring(newKey);
    const sealed = sealSecret(keyring, plaintext, place);
    expect(() => openSecret(keyring, sealed, elsewhere)).toThrow(/authentication failed/);
  });

  it('rejects a value whose key id was relabelled to another key the process holds', () => {
    const keyring = masterKeyring(newKey, [oldKey]);
    const sealed = sealSecret(keyring, plaintext, place);
    const relabelled: SealedSecret = { ...sealed, keyId: masterKeyring(oldKey).current.id };
    expect(() => openSecret(keyring, relabelled, place)).toThrow(/authentication failed/);
  });

  it('derives a key id from the key alone: the same key has the same id in every process', () => {
    expect(masterKeyring(Buffer.from(newKey)).current.id).toBe(masterKeyring(newKey).current.id);
    expect(masterKeyring(newKey).current.id).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(masterKeyring(newKey, [oldKey, newKey]).ids).toHaveLength(2);
  });
});
