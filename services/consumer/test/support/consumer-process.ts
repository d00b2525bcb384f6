import path from 'node:path';
import { spawnService, type ServiceProcess } from '../../../../test/support/service-process.ts';

export const CONSUMER_MAIN = path.resolve(import.meta.dirname, '../../src/main.ts');
export const COUNTING_CONSUMER = path.resolve(import.meta.dirname, '../fixtures/counting-consumer.ts');

export type ConsumerProcess = ServiceProcess;

/** Runs a consumer entry point as its own process with exactly `env` (plus PATH and HOME). */
export function spawnConsumer(entry: string, env: NodeJS.ProcessEnv, cwd?: string): ConsumerProcess {
  return spawnService(entry, env, cwd);
}
