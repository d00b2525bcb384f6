// Where provisioned servers live. Shared by provision.ts (writes) and servers.ts (reads).
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const PROVISION_COMMAND = 'node test/infra/provision.ts';

export const POSTGRES_MAJOR = 15;
export const KAFKA_VERSION = '3.9.1';
export const SCALA_VERSION = '2.13';
// The SLF4J binding Kafka 3.9 itself ships with (slf4j 1.7.x + reload4j).
export const SLF4J_RELOAD4J_VERSION = '1.7.36';

export const postgresBinDir = `/usr/lib/postgresql/${POSTGRES_MAJOR}/bin`;
export const redisServerBin = '/usr/bin/redis-server';

/** Read on every call so a test or script can point SHOP_INFRA_CACHE elsewhere. */
export function cacheDir(): string {
  return process.env.SHOP_INFRA_CACHE ?? join(homedir(), '.cache', 'shop-infra');
}

export function kafkaDir(): string {
  return join(cacheDir(), `kafka-${KAFKA_VERSION}`);
}

export function kafkaLibsDir(): string {
  return join(kafkaDir(), 'libs');
}

/** Written last by provision.ts: its presence means the libs folder is complete. */
export function kafkaMarker(): string {
  return join(kafkaDir(), '.provisioned');
}

export function isPostgresInstalled(): boolean {
  return existsSync(join(postgresBinDir, 'postgres')) && existsSync(join(postgresBinDir, 'initdb'));
}

export function isRedisInstalled(): boolean {
  return existsSync(redisServerBin);
}

export function isKafkaProvisioned(): boolean {
  return existsSync(kafkaMarker());
}
