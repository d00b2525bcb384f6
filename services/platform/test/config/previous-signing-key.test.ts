import { describe, expect, it } from 'vitest';
import { ConfigError } from '@shop/runtime';
import { DEVELOPMENT_SECRET_KEY, loadConfig } from '../../src/config/config.ts';

const PRODUCTION = {
  NODE_ENV: 'production',
  DATABASE_URL: 'postgresql://db/shop',
  CACHE_URL: 'redis://cache:6379',
  BROKER_ADDRESS: 'kafka:9092',
  SECRET_KEY: 'n'.repeat(40),
  SECRETS_MASTER_KEY: Buffer.alloc(32, 1).toString('base64'),
};

const problemsOf = (env: NodeJS.ProcessEnv): readonly string[] => {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
};

describe('SECRET_KEY_PREVIOUS', () => {
  it('is optional, and read as the key before the last rotation', () => {
    expect(loadConfig(PRODUCTION).secretKeyPrevious).toBeUndefined();
    expect(loadConfig({ ...PRODUCTION, SECRET_KEY_PREVIOUS: 'o'.repeat(40) }).secretKeyPrevious).toBe('o'.repeat(40));
  });

  it('is held to the rules of SECRET_KEY in production', () => {
    expect(problemsOf({ ...PRODUCTION, SECRET_KEY_PREVIOUS: 'short' })).toEqual([
      'SECRET_KEY_PREVIOUS: must be at least 32 characters (a long URL-safe random string)',
    ]);
    expect(problemsOf({ ...PRODUCTION, SECRET_KEY_PREVIOUS: DEVELOPMENT_SECRET_KEY })).toEqual([
      'SECRET_KEY_PREVIOUS: is the embedded development key; generate a new one',
    ]);
    expect(loadConfig({ SECRET_KEY_PREVIOUS: 'short' }).secretKeyPrevious).toBe('short');
  });
});
