// Smoke tests of the built shop/storefront-example image, the front end of the extension sync chain:
// it serves the demo page and the beacon from outside and relays a beacon to the api it is given;
// it refuses a bad configuration with exit code 78; and the offline build refuses to build it with
// an EXTENSIONS_SYNC_HASH that is not the platform image's extension set.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_DIR, IMAGES } from '../../images/contents.ts';
import { buildImages, type BuiltImage } from '../../images/build/build-images.ts';
import { recordPath, REPOSITORY_ROOT } from '../../images/build/layout.ts';
import { SYNC_MANIFEST_FILE, type SyncManifest } from '../../images/sync/sync-manifest.ts';
import { EXTENSION_LOCK_FILE, extensionSetHash, readExtensionLock } from '../../services/platform/src/extensions/extension-lock.ts';
import { freePort } from '../infra/proc.ts';
import { eventually } from '../support/wait.ts';
import { BUILD_TIMEOUT_MS, openBuiltImage } from './support/built-image.ts';
import { imageChecks } from './support/image-checks.ts';
import type { ImageContainer } from './support/image-container.ts';

let built: BuiltImage;
let container: ImageContainer;

beforeAll(async () => {
  ({ built, container } = await openBuiltImage('storefront'));
}, BUILD_TIMEOUT_MS);

afterAll(async () => {
  await container?.dispose();
});

describe('the shop/storefront-example image', () => {
  imageChecks(() => ({ built, container }));

  it('serves the demo page and the beacon from outside, and answers a beacon with 502 when the api is away; SIGTERM stops it with 0', async () => {
    const port = await freePort();
    const absentApi = `http://127.0.0.1:${await freePort()}`;
    const storefront = container.start(container.config.Entrypoint, { env: { PORT: String(port), API_URL: absentApi } });
    const url = `http://127.0.0.1:${port}`;
    try {
      await eventually(
        async () => {
          const response = await fetch(`${url}/health`);
          if (!response.ok) throw new Error(`/health answered ${response.status}`);
        },
        { timeoutMs: 60_000, intervalMs: 250, abortReason: () => storefront.exitReason() },
      );
      const page = await fetch(`${url}/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('data-shop-entity-type');
      const beacon = await fetch(`${url}/api/track`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ event_type: 'click', entity_type: 'hero', entity_id: '1', page_url: `${url}/` }),
      });
      expect(beacon.status).toBe(502);
    } finally {
      const { code, output } = await storefront.stop();
      expect(output).toContain('Server listening at');
      expect(code, output).toBe(0);
    }
  });

  it('refuses a bad configuration with exit code 78, naming the variable', async () => {
    const { code, output } = await container.run(container.config.Entrypoint, { env: { PORT: 'eighty' } });
    expect(code, output).toBe(78);
    expect(output.trim()).toBe('config error: PORT: must be a whole number from 0 to 65535 (got "eighty")');
  });
});

describe('the extension sync chain of the offline build', () => {
  it(
    'gives the platform image the sync manifest of the committed extension set',
    async () => {
      const platform = await openBuiltImage('platform');
      try {
        const manifest = JSON.parse(await readFile(join(platform.container.rootDir, APP_DIR, SYNC_MANIFEST_FILE), 'utf8')) as SyncManifest;
        const lock = await readExtensionLock(join(REPOSITORY_ROOT, EXTENSION_LOCK_FILE));
        expect(manifest).toEqual({ platformImage: platform.built.reference, extensions: lock.extensions, setHash: lock.setHash });
      } finally {
        await platform.container.dispose();
      }
    },
    BUILD_TIMEOUT_MS,
  );

  it(
    'refuses to build the front ends with an EXTENSIONS_SYNC_HASH of another extension set, before committing any image',
    async () => {
      const stale = extensionSetHash([{ id: 'reviews', version: '0.3.1' }]);
      const records = () => Promise.all(IMAGES.map((image) => readFile(recordPath(image), 'utf8')));
      const before = await records();
      await expect(buildImages(() => {}, { extensionsSyncHash: stale })).rejects.toThrow(
        `extension sync check failed: EXTENSIONS_SYNC_HASH ${stale} is not the extension set of shop/platform:`,
      );
      expect(await records()).toEqual(before);
    },
    BUILD_TIMEOUT_MS,
  );
});
