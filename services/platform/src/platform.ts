import type { Registry } from 'prom-client';
import type { Config } from './config/config.ts';
import type { Logger } from '@shop/runtime';
import { createMetricsRegistry } from './metrics/registry.ts';
import { openDatabase, type Database } from './db/database.ts';
import { openCache } from './cache/open-cache.ts';
import type { Cache } from './cache/cache.ts';
import { openBroker } from './broker/open-broker.ts';
import type { Broker } from './broker/broker.ts';

/** The infrastructure one process owns: opened once at start, closed once at stop. */
export interface Platform {
  readonly config: Config;
  readonly logger: Logger;
  readonly metrics: Registry;
  readonly database: Database;
  readonly cache: Cache;
  readonly broker: Broker;
  close(): Promise<void>;
}

export async function openPlatform(config: Config, logger: Logger, service: string): Promise<Platform> {
  const metrics = createMetricsRegistry(service);
  const database = await openDatabase(config, logger, metrics);
  const cache = openCache(config, logger);
  const broker = openBroker(config, logger);
  return {
    config,
    logger,
    metrics,
    database,
    cache,
    broker,
    async close() {
      const results = await Promise.allSettled([broker.close(), cache.close(), database.close()]);
      for (const result of results) {
        if (result.status === 'rejected') logger.warn({ err: result.reason }, 'a dependency did not close cleanly');
      }
    },
  };
}
