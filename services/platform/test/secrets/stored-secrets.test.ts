import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SecretUnreadableError } from '../../src/secrets/envelope.ts';
import { masterKeyring } from '../../src/secrets/keyring.ts';
import { readStoredSecret, setStoredSecret, storedSecretStatus } from '../../src/secrets/stored-secrets.ts';
import { newMasterKey, openSecretsDatabase, type SecretsDatabase } from '../support/secrets-database.ts';

let db: SecretsDatabase;
const oldKey = newMasterKey();
const newKey = newMasterKey();
const before = masterKeyring(oldKey);
const rotated = masterKeyring(newKey, [oldKey]);
const at = new Date('2026-11-25T10:00:00.000Z');

beforeAll(async () => {
  db = await openSecretsDatabase('stored_secrets');
});
afterAll(async () => db?.close());
beforeEach(async () => {
  await db.database.pool.query('TRUNCATE stored_secrets');
});

const prisma = () => db.database.prisma;

describe('the stored secrets', () => {
  it('stores only ciphertext, and reads the value back with its status: when, by whom, under which key', async () => {
    const staff = await prisma().staffUser.create({ data: { email: 'keeper@example.com', passwordHash: 'x', name: 'Keeper' } });
    const status = await setStoredSecret(prisma(), rotated, {
      key: 'payments.api_key',
      value: 'sk_live_abc123',
      setAt: at,
      setByStaffUserId: staff.id,
    });
    expect(status).toEqual({ key: 'payments.api_key', setAt: at, setByStaffUserId: staff.id, keyId: rotated.current.id });
    expect(await storedSecretStatus(prisma(), 'payments.api_key')).toEqual(status);
    expect(await readStoredSecret(prisma(), rotated, 'payments.api_key')).toBe('sk_live_abc123');

    const { rows } = await db.database.pool.query<{ raw: string }>(
      "SELECT encode(ciphertext, 'escape') || key_id || key AS raw FROM stored_secrets",
    );
    expect(rows[0]?.raw).not.toContain('sk_live_abc123');
  });

  it('answers undefined for a key never set', async () => {
    expect(await readStoredSecret(prisma(), rotated, 'never.set')).toBeUndefined();
    expect(await storedSecretStatus(prisma(), 'never.set')).toBeUndefined();
  });

  it('replaces a value under the current key, and reads values written under the key rotated from', async () => {
    await setStoredSecret(prisma(), before, { key: 'webhooks.signing', value: 'first', setAt: at, setByStaffUserId: null });
    expect((await storedSecretStatus(prisma(), 'webhooks.signing'))?.keyId).toBe(before.current.id);
    expect(await readStoredSecret(prisma(), rotated, 'webhooks.signing')).toBe('first');

    const later = new Date(at.getTime() + 60_000);
    await setStoredSecret(prisma(), rotated, { key: 'webhooks.signing', value: 'second', setAt: later, setByStaffUserId: null });
    expect(await storedSecretStatus(prisma(), 'webhooks.signing')).toMatchObject({ setAt: later, keyId: rotated.current.id });
    expect(await readStoredSecret(prisma(), rotated, 'webhooks.signing')).toBe('second');
  });

  it('refuses a value whose key is gone from the configuration', async () => {
    await setStoredSecret(prisma(), before, { key: 'storage.secret', value: 'v', setAt: at, setByStaffUserId: null });
    await expect(readStoredSecret(prisma(), masterKeyring(newKey), 'storage.secret')).rejects.toThrow(SecretUnreadableError);
  });

  it('refuses a ciphertext copied into another row, and one altered in the database', async () => {
    await setStoredSecret(prisma(), rotated, { key: 'a', value: 'value of a', setAt: at, setByStaffUserId: null });
    await setStoredSecret(prisma(), rotated, { key: 'b', value: 'value of b', setAt: at, setByStaffUserId: null });
    await db.database.pool.query(
      "UPDATE stored_secrets SET ciphertext = (SELECT ciphertext FROM stored_secrets WHERE key = 'a') WHERE key = 'b'",
    );
    await expect(readStoredSecret(prisma(), rotated, 'b')).rejects.toThrow(/authentication failed/);

    await db.database.pool.query(
      "UPDATE stored_secrets SET ciphertext = set_byte(ciphertext, 20, get_byte(ciphertext, 20) # 1) WHERE key = 'a'",
    );
    await expect(readStoredSecret(prisma(), rotated, 'a')).rejects.toThrow(/authentication failed/);
  });

  it('keeps a secret when the staff user who set it is deleted', async () => {
    const staff = await prisma().staffUser.create({ data: { email: 'leaver@example.com', passwordHash: 'x', name: 'Leaver' } });
    await setStoredSecret(prisma(), rotated, { key: 'oauth.client_secret', value: 'v', setAt: at, setByStaffUserId: staff.id });
    await prisma().staffUser.delete({ where: { id: staff.id } });
    expect(await storedSecretStatus(prisma(), 'oauth.client_secret')).toMatchObject({ setByStaffUserId: null });
    expect(await readStoredSecret(prisma(), rotated, 'oauth.client_secret')).toBe('v');
  });
});
