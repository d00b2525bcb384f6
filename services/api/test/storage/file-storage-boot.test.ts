import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { applyMigrations } from '@shop/platform';
import { createTestDatabase, type TestDatabase } from '../../../../test/infra/isolation.ts';
import { startVersityGw, type S3ServerHandle } from '../../../../test/infra/versitygw.ts';
import { runApi } from '../support/run-api.ts';

let database: TestDatabase;
let s3: S3ServerHandle;
beforeAll(async () => {
  [database, s3] = await Promise.all([createTestDatabase('file_storage_boot'), startVersityGw()]);
  await applyMigrations(database.url);
});
afterAll(() => Promise.all([database?.drop(), s3?.dispose()]));

const production = (): Record<string, string> => ({
  NODE_ENV: 'production',
  PORT: '0',
  DATABASE_URL: database.url,
  CACHE_URL: inject('redisUrl'),
  BROKER_ADDRESS: inject('kafkaBrokers'),
  SECRET_KEY: 'x'.repeat(48),
  SECRETS_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'),
});

it('refuses local file storage pinned in production: exit 78 and one line naming FILE_STORAGE_PROVIDER', async () => {
  const api = runApi({ ...production(), FILE_STORAGE_PROVIDER: 'local' });
  const { code } = await api.exited();
  expect(code).toBe(78);
  const refusals = api
    .output()
    .split('\n')
    .filter((line) => line.startsWith('config error:'));
  expect(refusals).toEqual([
    "config error: FILE_STORAGE_PROVIDER: local file storage is refused in production (NODE_ENV=production), its files would live on one pod's disk; install a storage extension such as s3 and configure it (registered: local, s3)",
  ]);
});

it('starts in production with no storage extension configured, uploads off and one warning saying so', async () => {
  const api = runApi(production());
  try {
    const url = await api.listening();
    expect((await fetch(`${url}/uploads/products/1/front.png`)).status).toBe(404);
    const warnings = api
      .output()
      .split('\n')
      .filter((line) =>
        line.includes('no file storage: production does not use local storage and no storage extension is configured, so uploads are off'),
      );
    expect(warnings).toHaveLength(1);
  } finally {
    api.child.kill('SIGTERM');
    await api.exited();
  }
});

it('starts in production with the s3 extension configured, and serves no /uploads', async () => {
  const api = runApi({
    ...production(),
    S3_ENDPOINT: s3.url,
    S3_BUCKET: 'media',
    S3_ACCESS_KEY: s3.accessKey,
    S3_SECRET_KEY: s3.secretKey,
  });
  try {
    const url = await api.listening();
    expect((await fetch(`${url}/uploads/products/1/front.png`)).status).toBe(404);
  } finally {
    api.child.kill('SIGTERM');
    await api.exited();
  }
});
