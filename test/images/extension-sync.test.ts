// The front-end builds' check of the extension sync, as they run it: the command that fails the build.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '../../images/build/layout.ts';
import { writeSyncManifest, type SyncManifest } from '../../images/sync/sync-manifest.ts';
import { extensionSetHash } from '../../services/platform/src/extensions/extension-lock.ts';

const VERIFY = join(REPOSITORY_ROOT, 'images/sync/verify-sync.ts');
let dir: string;
let manifestFile: string;
let manifest: SyncManifest;

/** The committed set as the check names it, e.g. `order-notes@0.1.0, s3-storage@0.1.0`. */
const described = () => manifest.extensions.map(({ id, version }) => `${id}@${version}`).join(', ') || 'no extensions';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'extension-sync-'));
  manifestFile = join(dir, 'extensions-sync.json');
  manifest = await writeSyncManifest(REPOSITORY_ROOT, 'shop/platform:9.9.9', manifestFile);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function verify(syncHash: string | undefined): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { PATH: process.env.PATH, ...(syncHash === undefined ? {} : { EXTENSIONS_SYNC_HASH: syncHash }) };
  return promisify(execFile)(process.execPath, [VERIFY, manifestFile], { env }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

describe('the extension sync check of a front-end build', () => {
  it('describes the committed extension set for the platform image', () => {
    expect(manifest).toMatchObject({ platformImage: 'shop/platform:9.9.9', setHash: extensionSetHash(manifest.extensions) });
  });

  it("passes the hash of the platform image's extension set", async () => {
    expect(await verify(manifest.setHash)).toMatchObject({
      code: 0,
      stdout: `extension sync matches shop/platform:9.9.9: ${manifest.setHash}\n`,
    });
  });

  it('fails the build when EXTENSIONS_SYNC_HASH is missing, saying what to do', async () => {
    const missing = await verify(undefined);
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toBe(
      `extension sync check failed: EXTENSIONS_SYNC_HASH is not set: sync the front end's extension UI against shop/platform:9.9.9 (${described()}) and build it with the set hash of that sync`,
    );
    expect((await verify('  ')).code).toBe(1);
  });

  it('fails the build when the front end was synced against another extension set', async () => {
    const other = extensionSetHash([{ id: 'reviews', version: '0.3.1' }]);
    const stale = await verify(other);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain(
      `EXTENSIONS_SYNC_HASH ${other} is not the extension set of shop/platform:9.9.9 (${manifest.setHash}: ${described()})`,
    );
    expect(stale.stderr).toContain('sync it again against this platform image');
  });
});
