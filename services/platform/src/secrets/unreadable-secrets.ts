import type { MasterKeyring } from './keyring.ts';
import { describeRowsPerKeyId, type RowsPerKeyId } from './rows-per-key.ts';

/** The key ids (with their row counts) that stored rows are under but the keyring does not hold. */
export function unreadableKeyIds(counts: RowsPerKeyId, keyring: MasterKeyring): RowsPerKeyId {
  return new Map([...counts].filter(([keyId]) => keyring.byId(keyId) === undefined));
}

/** The one configuration problem that stops a process whose keys cannot read every stored secret. */
export function unreadableSecretsProblem(missing: RowsPerKeyId): string {
  return (
    `SECRETS_MASTER_KEY: stored secrets are under master keys this process does not have: key ids ${describeRowsPerKeyId(missing)}; ` +
    'set each of those keys in SECRETS_MASTER_KEY_ROTATING_FROM (docs/secrets.md)'
  );
}
