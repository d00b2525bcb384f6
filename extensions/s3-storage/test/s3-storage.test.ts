import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, createLogger, loadConfig, loadExtensionConfig } from '@shop/platform';
import { coreStorageRegistry, openFileStorage, StorageError, StorageRegistry, type FileStorage } from '@shop/platform/storage';
import { freePort } from '../../../test/infra/proc.ts';
import { startVersityGw, type S3ServerHandle } from '../../../test/infra/versitygw.ts';
import { register, S3FileStorage, s3Config, s3SettingsOf } from '../src/index.ts';

const SETUP_CLI = fileURLToPath(new URL('../src/setup-cli.ts', import.meta.url));
const BUCKET = 'media';
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

let server: S3ServerHandle;
beforeAll(async () => {
  server = await startVersityGw();
}, 60_000);
afterAll(() => server?.dispose());

function s3Env(overrides: Record<string, string> = {}): Record<string, string> {
  return { S3_ENDPOINT: server.url, S3_ACCESS_KEY: server.accessKey, S3_SECRET_KEY: server.secretKey, S3_BUCKET: BUCKET, ...overrides };
}

/** The core's registry with the s3 provider registered as the api registers it, over the extension's variables read from `env`. */
function registryWithS3(env: NodeJS.ProcessEnv, registry = coreStorageRegistry()): StorageRegistry {
  register(registry, { config: loadExtensionConfig(s3Config, env) });
  return registry;
}

/** The provider as the api builds it, from these variables. */
async function storageOf(overrides: Record<string, string> = {}): Promise<FileStorage> {
  const env = s3Env(overrides);
  const storage = await openFileStorage(registryWithS3(env), loadConfig(env), logger);
  if (storage === undefined) throw new Error('no file storage was selected');
  return storage;
}

const logger = createLogger({ level: 'ERROR', service: 'test' });
const execFileAsync = promisify(execFile);

/** `npm run storage:setup` with these variables: its exit code and what it printed. */
async function setUp(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [SETUP_CLI], { env: { PATH: process.env.PATH ?? '', ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

describe('npm run storage:setup', () => {
  it('creates the bucket, and a second run finds it (idempotent)', async () => {
    expect(await setUp(s3Env())).toEqual({
      code: 0,
      stdout: `bucket "media" at ${server.url}: created, objects publicly readable\n`,
      stderr: '',
    });
    expect(await setUp(s3Env())).toEqual({
      code: 0,
      stdout: `bucket "media" at ${server.url}: exists already, objects publicly readable\n`,
      stderr: '',
    });
  });

  it('stops with one line naming the variables for refused credentials', async () => {
    expect(await setUp(s3Env({ S3_SECRET_KEY: 'not-the-secret' }))).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: checking bucket "media": S3 at ${server.url} refused the credentials (S3_ACCESS_KEY, S3_SECRET_KEY): HTTP 403\n`,
    });
  });

  it('stops with a configuration error naming a missing variable', async () => {
    const { S3_BUCKET: _, ...withoutBucket } = s3Env();
    expect(await setUp(withoutBucket)).toEqual({
      code: 78,
      stdout: '',
      stderr: 'config error: S3_BUCKET: is required by the s3 file storage provider\n',
    });
  });
});

describe('the s3 provider against versitygw', () => {
  beforeAll(async () => {
    await setUp(s3Env());
  });

  it('is the provider used when FILE_STORAGE_PROVIDER is empty, registered after local', async () => {
    expect(await storageOf()).toBeInstanceOf(S3FileStorage);
    expect((await storageOf({ FILE_STORAGE_PROVIDER: 'local' })).name).toBe('local');
  });

  it('puts, gets, heads and deletes an object', async () => {
    const storage = await storageOf();
    await storage.put('products/1/front.png', PNG, 'image/png');
    expect(await storage.get('products/1/front.png')).toEqual({ body: PNG, contentType: 'image/png' });
    expect(await storage.head('products/1/front.png')).toEqual({ contentType: 'image/png', sizeBytes: PNG.length });
    await storage.delete('products/1/front.png');
    expect(await storage.get('products/1/front.png')).toBeUndefined();
    expect(await storage.head('products/1/front.png')).toBeUndefined();
    await storage.delete('products/1/front.png');
  });

  it('takes a direct upload with the presigned URL, as a browser sends it, then serves it publicly and by a signed URL', async () => {
    const storage = await storageOf({ S3_PUBLIC_URL: `${server.url}/` });
    const upload = await storage.signedUploadUrl('products/2/side.png', {
      contentType: 'image/png',
      sizeBytes: PNG.length,
      expiresInSeconds: 300,
    });
    const put = await fetch(upload.url, { method: upload.method, headers: upload.headers, body: PNG });
    expect(put.status).toBe(200);

    const publicUrl = storage.publicUrl('products/2/side.png');
    expect(publicUrl).toBe(`${server.url}/media/products/2/side.png`);
    const anonymous = await fetch(publicUrl);
    expect(anonymous.status).toBe(200);
    expect(anonymous.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await anonymous.arrayBuffer())).toEqual(PNG);

    const signed = await fetch(await storage.signedDownloadUrl('products/2/side.png', 60));
    expect(Buffer.from(await signed.arrayBuffer())).toEqual(PNG);
  });

  it('refuses a direct upload of another content type or size than signed', async () => {
    const storage = await storageOf();
    const upload = await storage.signedUploadUrl('products/3/back.png', {
      contentType: 'image/png',
      sizeBytes: PNG.length,
      expiresInSeconds: 300,
    });
    const otherType = await fetch(upload.url, { method: 'PUT', headers: { 'content-type': 'text/html' }, body: PNG });
    const larger = await fetch(upload.url, { method: 'PUT', headers: upload.headers, body: Buffer.concat([PNG, PNG]) });
    expect([otherType.status, larger.status]).toEqual([403, 403]);
    expect(await storage.get('products/3/back.png')).toBeUndefined();
  });

  it('names the variables when the secret key is wrong or the access key unknown, without an SDK stack', async () => {
    const wrongSecret = await storageOf({ S3_SECRET_KEY: 'not-the-secret' });
    await expect(wrongSecret.put('a.png', PNG, 'image/png')).rejects.toThrow(
      new StorageError(
        `storing "a.png": S3 at ${server.url} refused the credentials (S3_ACCESS_KEY, S3_SECRET_KEY): SignatureDoesNotMatch`,
      ),
    );
    const unknownKey = await storageOf({ S3_ACCESS_KEY: 'nobody' });
    await expect(unknownKey.get('a.png')).rejects.toThrow(
      new StorageError(`reading "a.png": S3 at ${server.url} refused the credentials (S3_ACCESS_KEY, S3_SECRET_KEY): XAdminUserNotFound`),
    );
  });

  it('says how to create a missing bucket', async () => {
    const storage = await storageOf({ S3_BUCKET: 'absent' });
    const missing = `bucket "absent" does not exist at ${server.url} (S3_BUCKET); create it with npm run storage:setup`;
    await expect(storage.put('a.png', PNG, 'image/png')).rejects.toThrow(new StorageError(`storing "a.png": ${missing}`));
    await expect(storage.get('a.png')).rejects.toThrow(new StorageError(`reading "a.png": ${missing}`));
    // A HEAD answer has no body naming the error: the provider asks about the bucket to tell the two apart.
    await expect(storage.head('a.png')).rejects.toThrow(new StorageError(`checking "a.png": ${missing}`));
  });

  it('names S3_ENDPOINT when nothing answers there', async () => {
    const endpoint = `http://127.0.0.1:${await freePort()}`;
    await expect((await storageOf({ S3_ENDPOINT: endpoint })).put('a.png', PNG, 'image/png')).rejects.toThrow(
      new StorageError(`storing "a.png": S3 at ${endpoint} is unreachable (S3_ENDPOINT): ECONNREFUSED`),
    );
  });

  it('leaves local storage in use without S3_ENDPOINT and S3_BUCKET, so a development api starts without an object store', async () => {
    const registry = registryWithS3({});
    expect(registry.names()).toEqual(['local', 's3']);
    expect((await openFileStorage(registry, loadConfig({}), logger))?.name).toBe('local');
  });

  it('refuses to be built with S3_BUCKET but no S3_ENDPOINT, naming it; keys left to the SDK when unset', async () => {
    const env = { S3_BUCKET: BUCKET };
    await expect(openFileStorage(registryWithS3(env, new StorageRegistry()), loadConfig(env), logger)).rejects.toThrow(
      new ConfigError(['S3_ENDPOINT: is required by the s3 file storage provider']),
    );
    expect(s3SettingsOf({ ...loadExtensionConfig(s3Config, env), endpoint: server.url }).credentials).toBeUndefined();
  });
});
