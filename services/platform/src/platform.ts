import type { Registry } from 'prom-client';
import type { Config } from './config/config.ts';
import { exitWithConfigProblems, type Logger } from '@shop/runtime';
import { createMetricsRegistry } from './metrics/registry.ts';
import { openDatabase, type Database } from './db/database.ts';
import { openCache } from './cache/open-cache.ts';
import type { Cache } from './cache/cache.ts';
import { openBroker } from './broker/open-broker.ts';
import type { Broker } from './broker/broker.ts';
import { keyringOf, type MasterKeyring } from './secrets/keyring.ts';
import { guardStoredSecretKeys } from './secrets/start-guard.ts';
import { registerStoredSecretsMetric } from './secrets/secrets-metrics.ts';

/** The infrastructure one process owns: opened once at start, closed once at stop. */
export interface Platform {
  readonly config: Config;
  readonly logger: Logger;
  readonly metrics: Registry;
  readonly database: Database;
  readonly cache: Cache;
  readonly broker: Broker;
  /** SECRETS_MASTER_KEY and SECRETS_MASTER_KEY_ROTATING_FROM, to seal and open stored secrets. */
  readonly masterKeys: MasterKeyring;
  close(): Promise<void>;
}

/**
 * Opens the database, cache and broker. A process whose master keys cannot decrypt some stored
 * secrets stops here with exit code 78 and one line naming the missing key ids and their rows.
 */
export async function openPlatform(config: Config, logger: Logger, service: string): Promise<Platform> {
  const metrics = createMetricsRegistry(service);
  const database = await openDatabase(config, logger, metrics);
  const masterKeys = keyringOf(config);
  const secretKeysGuard = await guardStoredSecretKeys({
    pool: database.pool,
    keyring: masterKeys,
    logger,
    refuse(problem) {
      logger.flush();
      exitWithConfigProblems([problem]);
    },
  });
  registerStoredSecretsMetric(metrics, database.pool);
  const cache = openCache(config, logger, metrics);
  const broker = openBroker(config, logger);
  return {
    config,
    logger,
    metrics,
    database,
    cache,
    broker,
    masterKeys,
    async close() {
      secretKeysGuard.stop();
      const results = await Promise.allSettled([broker.close(), cache.close(), database.close()]);
      for (const result of results) {
        if (result.status === 'rejected') logger.warn({ err: result.reason }, 'a dependency did not close cleanly');
      }
    },
  };
}
