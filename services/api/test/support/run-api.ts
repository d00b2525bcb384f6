import path from 'node:path';
import { spawnService, type ServiceProcess } from '../../../../test/support/service-process.ts';

export const API_MAIN = path.resolve(import.meta.dirname, '../../src/main.ts');

/** Runs the api entry point as its own process with exactly `env` (plus PATH and HOME). */
export function runApi(env: NodeJS.ProcessEnv, cwd?: string): ServiceProcess {
  return spawnService(API_MAIN, env, cwd);
}
