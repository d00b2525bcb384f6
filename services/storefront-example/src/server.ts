import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { SessionCookie, storefrontSession, trackProxy, type RelayFailure } from '@shop/beacon/proxy';
import type { StorefrontConfig } from './config.ts';
import { demoPage } from './page.ts';

export interface StorefrontOptions extends Omit<StorefrontConfig, 'host' | 'port' | 'logLevel' | 'storefrontToken'> {
  readonly storefrontToken?: string | undefined;
  /** Told about every beacon the api could not take (502, 504). */
  readonly onRelayFailure?: (failure: RelayFailure) => void;
}

/** The beacon module as @shop/beacon ships it: browsers load it as it is. */
export const BEACON_FILE = fileURLToPath(import.meta.resolve('@shop/beacon/beacon.js'));

/**
 * The example storefront: GET / (the demo page, which sets the session cookie the api issued), GET /beacon.js,
 * POST /api/track (relayed to the api's POST /track) and GET /health.
 */
export async function createStorefront(options: StorefrontOptions): Promise<Server> {
  const beacon = await readFile(BEACON_FILE, 'utf8');
  const page = demoPage();
  const api = {
    apiUrl: options.apiUrl,
    timeoutMs: options.apiTimeoutMs,
    ...(options.onRelayFailure === undefined ? {} : { onFailure: options.onRelayFailure }),
    ...(options.storefrontToken === undefined ? {} : { storefrontToken: options.storefrontToken }),
  };
  const session = new SessionCookie(api);
  const track = trackProxy(api);
  const sendPage = async (req: IncomingMessage, res: ServerResponse) => {
    // The session starts with the first page, before any beacon: the storefront's GraphQL calls
    // (carts) would send the same id as X-Session-ID. Without one (the api is down) the page still
    // shows, and the first beacon asks again.
    await storefrontSession(req, res, session);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(page);
  };

  return createServer((req, res) => {
    const { pathname } = new URL(req.url ?? '/', 'http://storefront');
    if (pathname === '/api/track') {
      void track(req, res);
    } else if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
    } else if (pathname === '/') {
      void sendPage(req, res);
    } else if (pathname === '/beacon.js') {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=300' }).end(beacon);
    } else if (pathname === '/health') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    } else {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
    }
  });
}
