import type { MasterKeyring } from './keyring.ts';
import type { RowsPerKeyId } from './rows-per-key.ts';

/** `secrets:status`: one line per key id with its rows and what this configuration makes of it; the current key is listed even with no rows. */
export function statusReport(counts: RowsPerKeyId, keyring: MasterKeyring): string[] {
  const role = (keyId: string): string => {
    if (keyId === keyring.current.id) return 'current (SECRETS_MASTER_KEY)';
    if (keyring.byId(keyId) !== undefined) return 'readable (SECRETS_MASTER_KEY_ROTATING_FROM)';
    return 'MISSING: no configured key has this id';
  };
  const keyIds = [...new Set([keyring.current.id, ...counts.keys(), ...keyring.ids])];
  return keyIds.map((keyId) => `${keyId}  ${String(counts.get(keyId) ?? 0).padStart(9)} rows  ${role(keyId)}`);
}
