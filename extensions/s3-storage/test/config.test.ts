// The S3_* variables belong to this extension: its config module reads them, and the api, the worker and
// the consumer check them at start like the core's, stopping with exit code 78 and one line per problem.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadExtensionConfig } from '@shop/platform';
import { spawnService } from '../../../test/support/service-process.ts';
import { s3Config } from '../src/index.ts';

describe('the S3_* variables', () => {
  it('are read by the extension, S3_PUBLIC_URL defaulting to S3_ENDPOINT, and all may be unset', () => {
    expect(loadExtensionConfig(s3Config, { S3_ENDPOINT: 'http://s3.internal:9000', S3_BUCKET: 'media' })).toEqual({
      endpoint: 'http://s3.internal:9000',
      publicUrl: 'http://s3.internal:9000',
      accessKey: undefined,
      secretKey: undefined,
      bucket: 'media',
    });
    expect(
      loadExtensionConfig(s3Config, { S3_ENDPOINT: 'http://s3.internal:9000', S3_PUBLIC_URL: 'https://cdn.example.com' }).publicUrl,
    ).toBe('https://cdn.example.com');
    expect(loadExtensionConfig(s3Config, {})).toEqual({
      endpoint: undefined,
      publicUrl: undefined,
      accessKey: undefined,
      secretKey: undefined,
      bucket: undefined,
    });
  });

  it('refuses a key without its pair and URLs that are not http(s), one problem each', () => {
    expect(() => loadExtensionConfig(s3Config, { S3_ACCESS_KEY: 'a', S3_ENDPOINT: 's3.internal', S3_PUBLIC_URL: 'ftp://cdn' })).toThrow(
      new ConfigError([
        'S3_ENDPOINT: must be a URL like http://host:port (got "s3.internal")',
        'S3_SECRET_KEY: must be set together with its pair',
        'S3_PUBLIC_URL: must use http:// or https:// (got ftp://)',
      ]),
    );
  });
});

const main = (service: string) => path.resolve(import.meta.dirname, `../../../services/${service}/src/main.ts`);
const BAD_S3 = { S3_SECRET_KEY: 'only-the-secret', S3_ENDPOINT: 's3.internal' };
const REFUSAL = [
  'config error: extension s3-storage: S3_ENDPOINT: must be a URL like http://host:port (got "s3.internal")',
  'config error: extension s3-storage: S3_ACCESS_KEY: must be set together with its pair',
];
// Each stops on the extensions' configuration before it opens a connection: nothing listens at these addresses.
const NOWHERE = { DATABASE_URL: 'postgresql://127.0.0.1:1/none', BROKER_ADDRESS: '127.0.0.1:1', WORKFLOW_HOST: '127.0.0.1:1' };

describe('at the start of a process', () => {
  it.each([
    ['api', { PORT: '0' }],
    ['worker', { WORKER_PORT: '0' }],
    ['consumer', { CONSUMER_PORT: '0' }],
  ])('the %s stops with exit code 78 and one line per problem, naming the extension and the variable', async (service, env) => {
    const started = spawnService(main(service), { NODE_ENV: 'test', ...NOWHERE, ...BAD_S3, ...env });
    const { code } = await started.exited();
    expect({
      code,
      lines: started
        .output()
        .split('\n')
        .filter((line) => line.startsWith('config error:')),
    }).toEqual({ code: 78, lines: REFUSAL });
  });
});
