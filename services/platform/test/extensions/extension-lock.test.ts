import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXTENSION_LOCK_FILE, extensionSetHash, readExtensionLock } from '../../src/extensions/extension-lock.ts';

const REPO_ROOT = path.resolve(import.meta.dirname, '../../../..');
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'extension-lock-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function lockfile(content: unknown): Promise<string> {
  const file = path.join(dir, `${Math.random().toString(36).slice(2)}.json`);
  await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

const S3 = { id: 's3-storage', version: '1.2.0' };
const REVIEWS = { id: 'reviews', version: '0.3.1' };

describe('the extension set hash', () => {
  it('depends on the ids and versions, not on their order', () => {
    expect(extensionSetHash([S3, REVIEWS])).toBe(extensionSetHash([REVIEWS, S3]));
    expect(extensionSetHash([S3, REVIEWS])).not.toBe(extensionSetHash([S3, { ...REVIEWS, version: '0.3.2' }]));
    expect(extensionSetHash([])).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});

describe('the lockfile', () => {
  it('is committed and consistent', async () => {
    const lock = await readExtensionLock(path.join(REPO_ROOT, EXTENSION_LOCK_FILE));
    expect(lock.setHash).toBe(extensionSetHash(lock.extensions));
  });

  it('is read when its hash is its set', async () => {
    const file = await lockfile({ extensions: [S3, REVIEWS], setHash: extensionSetHash([REVIEWS, S3]) });
    expect(await readExtensionLock(file)).toEqual({ extensions: [S3, REVIEWS], setHash: extensionSetHash([S3, REVIEWS]) });
  });

  it('is refused with the file and the problem named', async () => {
    const stale = await lockfile({ extensions: [S3], setHash: extensionSetHash([]) });
    await expect(readExtensionLock(stale)).rejects.toThrow(
      `${stale}: "setHash" is "${extensionSetHash([])}" but its extensions hash to ${extensionSetHash([S3])}`,
    );
    const twice = await lockfile({ extensions: [S3, { ...S3, version: '2.0.0' }], setHash: '' });
    await expect(readExtensionLock(twice)).rejects.toThrow('extension "s3-storage" is listed twice');
    const partial = await lockfile({ extensions: [{ id: 'reviews' }], setHash: '' });
    await expect(readExtensionLock(partial)).rejects.toThrow('extensions[0] needs an "id" and a "version" (strings)');
    await expect(readExtensionLock(await lockfile({ setHash: '' }))).rejects.toThrow('"extensions" must be a list of { id, version }');
    await expect(readExtensionLock(await lockfile('{ not json'))).rejects.toThrow(/JSON/);
    await expect(readExtensionLock(path.join(dir, 'missing.json'))).rejects.toThrow(/ENOENT/);
  });
});
