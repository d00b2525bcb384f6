import { setStoredSecret, storedSecretStatus, type MasterKeyring, type StoredSecretStatus } from '@shop/platform';
import { DomainError, LIMITS, type Tx } from '../kernel/index.ts';

/** `area.name`, lower case, e.g. `payments.gateway_api_key`: the names later features read their credentials by. */
const SECRET_NAME = /^[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)+$/;
/** Far above any credential; bounds what one call stores. */
const VALUE_MAX_BYTES = 16 * 1024;

export interface SecretInput {
  readonly key: string;
  readonly value: string;
  /** Who sets it: the staff user the api authorized for secrets.manage. */
  readonly staffUserId: bigint;
  readonly now: Date;
}

function checkedKey(key: string): string {
  if (SECRET_NAME.test(key) && key.length <= LIMITS.secretKey.max) return key;
  throw new DomainError(
    'BAD_USER_INPUT',
    `key must look like area.name (lower case, digits and "_"), at most ${LIMITS.secretKey.max} characters`,
    { field: 'key' },
  );
}

// Never quotes the value: errors are logged and answered.
function checkedValue(value: string): string {
  if (value === '') throw new DomainError('BAD_USER_INPUT', 'value must not be empty', { field: 'value' });
  if (Buffer.byteLength(value, 'utf8') > VALUE_MAX_BYTES)
    throw new DomainError('BAD_USER_INPUT', `value must be at most ${VALUE_MAX_BYTES} bytes`, { field: 'value' });
  return value;
}

/**
 * Stores the value encrypted under the current master key, replacing any earlier one, and answers
 * what may be shown (when, by whom, under which key id): never the value.
 */
export async function storeSecret(tx: Tx, masterKeys: MasterKeyring, input: SecretInput): Promise<StoredSecretStatus> {
  const write = { key: checkedKey(input.key), value: checkedValue(input.value), setAt: input.now, setByStaffUserId: input.staffUserId };
  return setStoredSecret(tx, masterKeys, write);
}

/** Whether the key is set, when, by whom and under which key id; null when never set. */
export async function secretStatus(tx: Tx, key: string): Promise<StoredSecretStatus | null> {
  return (await storedSecretStatus(tx, checkedKey(key))) ?? null;
}
