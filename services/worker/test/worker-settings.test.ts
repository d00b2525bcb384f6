import { describe, expect, it } from 'vitest';
import { loadConfig } from '@shop/platform';
import { workerProblems } from '../src/worker-settings.ts';

const WORKER_ENV = { NODE_ENV: 'test', DATABASE_URL: 'postgresql://shop@127.0.0.1:5432/shop', WORKFLOW_HOST: '127.0.0.1:7233' };

describe('WORKER_ACTIVITY_CONCURRENCY', () => {
  it('defaults to two below DATABASE_POOL_MAX, at least 1', () => {
    expect(loadConfig({ ...WORKER_ENV, DATABASE_POOL_MAX: '5' }).workerActivityConcurrency).toBe(3);
    expect(loadConfig(WORKER_ENV).workerActivityConcurrency).toBe(8);
    expect(loadConfig({ ...WORKER_ENV, DATABASE_POOL_MAX: '2' }).workerActivityConcurrency).toBe(1);
    expect(workerProblems(loadConfig({ ...WORKER_ENV, DATABASE_POOL_MAX: '5' }))).toEqual([]);
  });

  it('stops the worker with one line naming it when it is not below the pool', () => {
    expect(workerProblems(loadConfig({ ...WORKER_ENV, DATABASE_POOL_MAX: '5', WORKER_ACTIVITY_CONCURRENCY: '5' }))).toEqual([
      "WORKER_ACTIVITY_CONCURRENCY: must be below DATABASE_POOL_MAX (got 5 with a pool of 5), so a read outside an activity's transaction always finds a connection",
    ]);
    expect(workerProblems(loadConfig({ ...WORKER_ENV, DATABASE_POOL_MAX: '1' }))).toEqual([
      expect.stringMatching(/^WORKER_ACTIVITY_CONCURRENCY: must be below DATABASE_POOL_MAX \(got 1 with a pool of 1\)/),
    ]);
  });

  it('refuses a value that is not a whole number, naming it', () => {
    expect(() => loadConfig({ ...WORKER_ENV, WORKER_ACTIVITY_CONCURRENCY: 'many' })).toThrow(
      'WORKER_ACTIVITY_CONCURRENCY: must be a whole number from 1 to 1000 (got "many")',
    );
  });
});
