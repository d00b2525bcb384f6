import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, createLogger } from '@shop/runtime';
import { loadConfig } from '../../src/config/config.ts';
import {
  coreStorageRegistry,
  LocalFileStorage,
  MAX_UPLOAD_BYTES,
  openFileStorage,
  StorageInputError,
  StorageRegistry,
  UploadTokenError,
  type StorageProvider,
} from '../../src/storage/index.ts';

const SECRET = 'a-test-secret-key-of-at-least-32-characters';

/** A logger whose lines the test reads. */
function recordingLogger() {
  const lines: { level: string; msg: string }[] = [];
  const logger = createLogger({
    level: 'INFO',
    service: 'test',
    destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
  });
  return { logger, lines };
}

const named = (name: string): StorageProvider => ({
  name,
  create: () => {
    throw new Error(`${name} is only selected here, never built`);
  },
});

describe('the storage registry', () => {
  const registry = new StorageRegistry();
  registry.register(named('local'));
  registry.register(named('s3'));
  let gcsConfigured = false;
  registry.register({ ...named('gcs'), isConfigured: () => gcsConfigured });
  const pinning = (env: NodeJS.ProcessEnv) => loadConfig(env);

  it('uses the last registered provider that is configured when FILE_STORAGE_PROVIDER is empty', () => {
    const { logger, lines } = recordingLogger();
    expect(registry.select(pinning({}), logger).name).toBe('s3');
    gcsConfigured = true;
    expect(registry.select(pinning({}), logger).name).toBe('gcs');
    gcsConfigured = false;
    expect(lines).toEqual([]);
  });

  it('uses the pinned provider, configured or not', () => {
    expect(registry.select(pinning({ FILE_STORAGE_PROVIDER: 'local' }), recordingLogger().logger).name).toBe('local');
    expect(registry.select(pinning({ FILE_STORAGE_PROVIDER: 'gcs' }), recordingLogger().logger).name).toBe('gcs');
  });

  it('falls back to the last registered with one warning naming the unknown provider and the registered ones', () => {
    const { logger, lines } = recordingLogger();
    expect(registry.select(pinning({ FILE_STORAGE_PROVIDER: 'azure' }), logger).name).toBe('s3');
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'WARNING',
        msg: 'FILE_STORAGE_PROVIDER=azure names no registered provider (registered: local, s3, gcs); using "s3", the last registered',
      }),
    ]);
  });

  it('refuses a second provider under a name already registered', () => {
    expect(() => registry.register(named('s3'))).toThrow('a file storage provider named "s3" is registered already');
  });
});

/** A production configuration with every required variable, plus `extra`. */
const productionConfig = (extra: Record<string, string> = {}) =>
  loadConfig({
    NODE_ENV: 'production',
    DATABASE_URL: 'postgresql://shop@db/shop',
    CACHE_URL: 'redis://cache',
    BROKER_ADDRESS: 'kafka:9092',
    SECRET_KEY: SECRET,
    SECRETS_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'),
    ...extra,
  });

describe('opening the file storage', () => {
  it('opens local storage outside production, from FILE_STORAGE_DIR, with absolute URLs under PUBLIC_API_BROWSER_ORIGIN', async () => {
    const config = loadConfig({ FILE_STORAGE_DIR: '/tmp/shop-uploads', PUBLIC_API_BROWSER_ORIGIN: 'https://api.shop.test' });
    const storage = await openFileStorage(coreStorageRegistry(), config, recordingLogger().logger);
    expect(storage).toBeInstanceOf(LocalFileStorage);
    expect(storage?.publicUrl('products/1/photo.png')).toBe('https://api.shop.test/uploads/products/1/photo.png');
  });

  it('refuses local storage in production with one line naming FILE_STORAGE_PROVIDER', async () => {
    const config = productionConfig({ FILE_STORAGE_PROVIDER: 'local' });
    const refusal: unknown = await openFileStorage(coreStorageRegistry(), config, recordingLogger().logger).catch(
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(ConfigError);
    expect((refusal as ConfigError).problems).toEqual([
      expect.stringMatching(/^FILE_STORAGE_PROVIDER: local file storage is refused in production \(NODE_ENV=production\)/),
    ]);
  });

  it('has no file storage in production when nothing but local is there to select, and warns once', async () => {
    const config = productionConfig();
    const { logger, lines } = recordingLogger();
    expect(await openFileStorage(coreStorageRegistry(), config, logger)).toBeUndefined();
    expect(lines.map((line) => line.msg)).toEqual([expect.stringMatching(/^no file storage: production does not use local storage/)]);
  });
});

describe('local file storage', () => {
  let dir: string;
  let storage: LocalFileStorage;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'shop-local-storage-'));
    storage = new LocalFileStorage({ dir, secretKeys: [SECRET], publicOrigin: undefined });
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('puts, gets, heads and deletes a file with its content type; relative URLs without PUBLIC_API_BROWSER_ORIGIN', async () => {
    await storage.put('products/7/front.webp', Buffer.from('webp bytes'), 'image/webp');
    expect(await storage.get('products/7/front.webp')).toEqual({ body: Buffer.from('webp bytes'), contentType: 'image/webp' });
    expect(await storage.head('products/7/front.webp')).toEqual({ contentType: 'image/webp', sizeBytes: 10 });
    expect(storage.publicUrl('products/7/front.webp')).toBe('/uploads/products/7/front.webp');
    await storage.delete('products/7/front.webp');
    expect(await storage.get('products/7/front.webp')).toBeUndefined();
    expect(await storage.head('products/7/front.webp')).toBeUndefined();
    await storage.delete('products/7/front.webp');
    expect(await readdir(join(dir, '.partial'))).toEqual([]);
  });

  it.each([
    '../outside.txt',
    'products/../../etc/passwd',
    '/etc/passwd',
    'products//x',
    '.content-types/x',
    'a/.hidden',
    'a\\b',
    'a b',
    '',
  ])('refuses the key %j', async (key) => {
    await expect(storage.put(key, Buffer.from('x'), 'text/plain')).rejects.toThrow(StorageInputError);
    await expect(storage.get(key)).rejects.toThrow(StorageInputError);
    await expect(storage.head(key)).rejects.toThrow(StorageInputError);
    expect(() => storage.publicUrl(key)).toThrow(StorageInputError);
  });

  it('signs upload URLs only for a plain content type, a size up to the maximum and a bounded lifetime', async () => {
    const upload = (contentType: string, sizeBytes: number, expiresInSeconds: number) =>
      storage.signedUploadUrl('a.png', { contentType, sizeBytes, expiresInSeconds });
    await expect(upload('image/png; charset=utf-8', 10, 60)).rejects.toThrow(
      'content type "image/png; charset=utf-8" is not a lowercase type/subtype without parameters',
    );
    await expect(upload('image/png', MAX_UPLOAD_BYTES + 1, 60)).rejects.toThrow(`upload size must be 1 to ${MAX_UPLOAD_BYTES} bytes`);
    await expect(upload('image/png', 10, 0)).rejects.toThrow('a signed URL must expire in 1 to');
    const signed = await upload('image/png', 10, 60);
    expect(signed).toMatchObject({ method: 'PUT', headers: { 'content-type': 'image/png' } });
    expect(signed.url).toMatch(/^\/uploads\/a\.png\?token=[\w-]+\.[\w-]+$/);
  });

  it('accepts its own upload token for its key only, until it expires, and under SECRET_KEY_PREVIOUS after a rotation', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const signer = new LocalFileStorage({ dir, secretKeys: [SECRET], publicOrigin: undefined, now: () => now });
    const token = new URL(
      (await signer.signedUploadUrl('a.png', { contentType: 'image/png', sizeBytes: 3, expiresInSeconds: 60 })).url,
      'http://x',
    ).searchParams.get('token') as string;
    expect(signer.tokens.verify(token, 'a.png')).toEqual({
      key: 'a.png',
      contentType: 'image/png',
      sizeBytes: 3,
      expiresAt: now / 1000 + 60,
    });
    expect(() => signer.tokens.verify(token, 'b.png')).toThrow('the upload token is for another object than "b.png"');
    const rotated = new LocalFileStorage({
      dir,
      secretKeys: ['the-next-secret-key-of-32-characters-or-more', SECRET],
      publicOrigin: undefined,
      now: () => now,
    });
    expect(rotated.tokens.verify(token, 'a.png').key).toBe('a.png');
    const other = new LocalFileStorage({
      dir,
      secretKeys: ['another-secret-key-of-32-characters-or-more'],
      publicOrigin: undefined,
      now: () => now,
    });
    expect(() => other.tokens.verify(token, 'a.png')).toThrow(new UploadTokenError('the upload token is not valid'));
    now += 60_000;
    expect(() => signer.tokens.verify(token, 'a.png')).toThrow('the upload token has expired');
  });
});
