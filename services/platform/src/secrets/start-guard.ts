import type pg from 'pg';
import type { Logger } from '@shop/runtime';
import type { MasterKeyring } from './keyring.ts';
import { rowsPerKeyId, type RowsPerKeyId } from './rows-per-key.ts';
import { unreadableKeyIds, unreadableSecretsProblem } from './unreadable-secrets.ts';

export interface StartGuardOptions {
  readonly pool: pg.Pool;
  readonly keyring: MasterKeyring;
  readonly logger: Logger;
  /** Called once with the problem when some stored rows are under keys the keyring lacks. */
  readonly refuse: (problem: string) => void | Promise<void>;
  readonly retryMs?: number;
}

export interface StartGuard {
  stop(): void;
}

/**
 * Checks, before the process serves, that its master keys can decrypt every stored secret, so a
 * missing key stops it at start rather than failing reads later. Processes start while the database
 * is down or not migrated yet (their readiness says so); the check is then retried in the background
 * and still refuses as soon as it can count the rows.
 */
export async function guardStoredSecretKeys(options: StartGuardOptions): Promise<StartGuard> {
  const { pool, keyring, logger, refuse, retryMs = 5_000 } = options;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const check = async (attempt: number): Promise<void> => {
    let counts: RowsPerKeyId;
    try {
      counts = await rowsPerKeyId(pool);
    } catch (error) {
      if (attempt === 0)
        logger.warn({ err: error }, `could not check that the master keys read every stored secret; retrying every ${retryMs} ms`);
      if (!stopped) timer = setTimeout(() => void check(attempt + 1), retryMs).unref();
      return;
    }
    const missing = unreadableKeyIds(counts, keyring);
    if (missing.size > 0 && !stopped) await refuse(unreadableSecretsProblem(missing));
  };

  await check(0);
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
