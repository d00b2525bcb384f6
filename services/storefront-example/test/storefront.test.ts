import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnService } from '../../../test/support/service-process.ts';
import { loadStorefrontConfig } from '../src/config.ts';
import { BANNERS, HERO, SLIDES } from '../src/page.ts';
import { BEACON_FILE, createStorefront } from '../src/server.ts';

const STOREFRONT_MAIN = path.resolve(import.meta.dirname, '../src/main.ts');

let server: Server;
let url: string;

beforeAll(async () => {
  // No api: the page shows without it (end-to-end.test.ts gets the session cookie from a real one).
  server = await createStorefront({ apiUrl: 'http://127.0.0.1:1', apiTimeoutMs: 1_000 });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

describe('the example storefront', () => {
  it('serves the demo page with every tracked entity and the beacon started, with no session while the api is down', async () => {
    const response = await fetch(`${url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('set-cookie')).toBeNull();
    const html = await response.text();
    for (const entity of [HERO, ...SLIDES, ...BANNERS]) {
      expect(html).toContain(`data-shop-entity-type="${entity.type}" data-shop-entity-id="${entity.id}"`);
    }
    expect(html).toContain("import { startBeacon } from '/beacon.js'");
    expect(html).toContain("startBeacon({ endpoint: '/api/track' })");
  });

  it('keeps the session the browser has without asking the api', async () => {
    const response = await fetch(`${url}/`, { headers: { cookie: `shop_session=g1.${'a'.repeat(22)}.${'b'.repeat(22)}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('set-cookie')).toBeNull();
  });

  it('serves the beacon module of @shop/beacon as JavaScript', async () => {
    const response = await fetch(`${url}/beacon.js`);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await response.text()).toBe(await readFile(BEACON_FILE, 'utf8'));
    expect(BEACON_FILE).toBe(path.resolve(import.meta.dirname, '../../beacon/src/beacon.js'));
  });

  it('answers /health, 404 and 405', async () => {
    expect(await (await fetch(`${url}/health`)).json()).toEqual({ status: 'ok' });
    expect((await fetch(`${url}/nothing`)).status).toBe(404);
    expect((await fetch(`${url}/`, { method: 'DELETE' })).status).toBe(405);
    expect((await fetch(`${url}/api/track`)).status).toBe(405);
  });
});

describe('the storefront configuration', () => {
  it('defaults to the api of npm start and port 8080', () => {
    expect(loadStorefrontConfig({})).toEqual({
      apiUrl: 'http://127.0.0.1:3000',
      host: '127.0.0.1',
      port: 8080,
      apiTimeoutMs: 5_000,
      logLevel: 'INFO',
    });
  });

  it('stops the process with 78 and one line per bad variable', async () => {
    const storefront = spawnService(STOREFRONT_MAIN, {
      API_URL: 'api:3000',
      PORT: '99999',
      API_TIMEOUT_MS: '0',
      STOREFRONT_TOKEN: 'secret',
    });
    expect((await storefront.exited()).code).toBe(78);
    expect(storefront.output().trim().split('\n')).toEqual([
      'config error: API_URL: must use http:// or https:// (got api://)',
      'config error: PORT: must be a whole number from 0 to 65535 (got "99999")',
      'config error: API_TIMEOUT_MS: must be a whole number from 1 to 600000 (got "0")',
      'config error: STOREFRONT_TOKEN: must be a storefront access token as createStorefrontToken answers it (sft_ and 43 more characters)',
    ]);
  });

  it('stops cleanly on SIGTERM', async () => {
    const storefront = spawnService(STOREFRONT_MAIN, { PORT: '0' });
    const started = await storefront.listening();
    expect((await fetch(`${started}/health`)).status).toBe(200);
    storefront.child.kill('SIGTERM');
    expect((await storefront.exited()).code).toBe(0);
    expect(storefront.output()).toContain('stopping on SIGTERM');
  });
});
