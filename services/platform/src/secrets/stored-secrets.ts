import type { Prisma } from '../generated/prisma/client.ts';
import { openSecret, sealSecret } from './envelope.ts';
import { placeOf, STORED_SECRET_VALUES } from './encrypted-columns.ts';
import type { MasterKeyring } from './keyring.ts';

type Db = Prisma.TransactionClient;

/** What may be shown about a stored secret: never its value. */
export interface StoredSecretStatus {
  readonly key: string;
  readonly setAt: Date;
  /** Null when no staff user set it. */
  readonly setByStaffUserId: bigint | null;
  readonly keyId: string;
}

export interface SecretWrite {
  readonly key: string;
  readonly value: string;
  readonly setAt: Date;
  readonly setByStaffUserId: bigint | null;
}

const STATUS_FIELDS = { key: true, setAt: true, setByStaffUserId: true, keyId: true } as const;

/** Encrypts the value under the current master key and stores it, replacing any earlier value of the key. */
export async function setStoredSecret(db: Db, keyring: MasterKeyring, write: SecretWrite): Promise<StoredSecretStatus> {
  const { keyId, ciphertext } = sealSecret(keyring, write.value, placeOf(STORED_SECRET_VALUES, write.key));
  const row = { keyId, ciphertext: new Uint8Array(ciphertext), setAt: write.setAt, setByStaffUserId: write.setByStaffUserId };
  return db.storedSecret.upsert({ where: { key: write.key }, create: { key: write.key, ...row }, update: row, select: STATUS_FIELDS });
}

/** The decrypted value, or undefined when the key was never set; throws SecretUnreadableError when it cannot be decrypted. */
export async function readStoredSecret(db: Db, keyring: MasterKeyring, key: string): Promise<string | undefined> {
  const row = await db.storedSecret.findUnique({ where: { key }, select: { keyId: true, ciphertext: true } });
  if (row === null) return undefined;
  return openSecret(keyring, { keyId: row.keyId, ciphertext: Buffer.from(row.ciphertext) }, placeOf(STORED_SECRET_VALUES, key));
}

/** Whether the key is set, when, by whom and under which master key; undefined when it was never set. */
export async function storedSecretStatus(db: Db, key: string): Promise<StoredSecretStatus | undefined> {
  return (await db.storedSecret.findUnique({ where: { key }, select: STATUS_FIELDS })) ?? undefined;
}
