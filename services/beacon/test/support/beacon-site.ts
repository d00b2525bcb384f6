import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const BEACON_FILE = new URL('../../src/beacon.js', import.meta.url);

export interface ReceivedEvent {
  readonly event_type: string;
  readonly entity_type: string;
  readonly entity_id: string;
  readonly page_url: string;
  readonly referrer_url?: string;
  readonly channel_id?: string;
}

export interface ReceivedRequest {
  readonly contentType: string | undefined;
  readonly events: ReceivedEvent[];
  readonly status: number;
}

/** How the site answers a POST /api/track; 202 unless a test says otherwise. */
export type Responder = (events: ReceivedEvent[]) => { status: number; headers?: Record<string, string> };

/**
 * A tiny site for the beacon: GET /beacon.js serves the module, GET /p/<n> the pages tests register,
 * and POST /api/track records what the beacon sends.
 */
export interface BeaconSite {
  readonly url: string;
  readonly requests: ReceivedRequest[];
  respond: Responder;
  /** Registers a page and returns its URL. */
  page(html: string): string;
  /** Every event recorded for the page at `pageUrl` so far. */
  eventsOf(pageUrl: string): ReceivedEvent[];
  close(): Promise<void>;
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export const accept: Responder = () => ({ status: 202 });

export async function startBeaconSite(): Promise<BeaconSite> {
  const beacon = await readFile(BEACON_FILE, 'utf8');
  const pages = new Map<string, string>();
  const requests: ReceivedRequest[] = [];
  let url = '';

  const site: BeaconSite = {
    get url() {
      return url;
    },
    requests,
    respond: accept,
    page(html) {
      const path = `/p/${pages.size + 1}`;
      pages.set(path, html);
      return `${url}${path}`;
    },
    eventsOf: (pageUrl) =>
      requests
        .filter((request) => request.status === 202)
        .flatMap((request) => request.events.filter((event) => event.page_url === pageUrl)),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://site').pathname;
    if (request.method === 'GET' && path === '/beacon.js') {
      response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(beacon);
    } else if (request.method === 'GET' && pages.has(path)) {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(pages.get(path));
    } else if (request.method === 'POST' && path === '/api/track') {
      void bodyOf(request).then((body) => {
        const parsed = JSON.parse(body) as ReceivedEvent | ReceivedEvent[];
        const events = Array.isArray(parsed) ? parsed : [parsed];
        const answer = site.respond(events);
        requests.push({ contentType: request.headers['content-type'], events, status: answer.status });
        response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end('{}');
      });
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return site;
}

/**
 * A page 5000 px tall whose tracked boxes are placed absolutely, with the beacon started and a few
 * helpers for the tests (run in the page, so their timing is the beacon's own clock):
 * `scenario.show(top)` scrolls so the element at `top` is fully in view and waits for the next frame,
 * `scenario.reveal(top, height, px)` shows only the `px` upper pixels of such an element,
 * `scenario.settle()` flushes the beacon and resolves once every request it sent is answered.
 */
export function trackedPage(body: string, options: Record<string, unknown> = {}): string {
  return `<!doctype html>
<html>
<head>
<meta charset="utf-8">
<title>beacon test</title>
<style>
  body { margin: 0; }
  .spacer { height: 5000px; }
  .box { position: absolute; left: 20px; width: 200px; height: 100px; background: #dde; }
</style>
</head>
<body>
<div class="spacer"></div>
${body}
<script type="module">
  import { startBeacon } from '/beacon.js';
  // Every request the beacon sends, so that scenario.settle() can wait until each is answered.
  const requests = [];
  const fetchOf = window.fetch.bind(window);
  window.fetch = (...args) => {
    const request = fetchOf(...args);
    requests.push(request.catch(() => undefined));
    return request;
  };
  window.beacon = startBeacon(${JSON.stringify(options)});
  // The page's clock may be stopped (the test moves it), so nothing here waits on a timer or an animation frame.
  // Resolves once the next intersection update is delivered: the beacon's observer, created earlier, has been told first.
  const rendered = () => new Promise((resolve) => {
    const observer = new IntersectionObserver(() => { observer.disconnect(); resolve(); });
    observer.observe(document.body);
  });
  const nextTask = () => new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => resolve();
    port2.postMessage(null);
  });
  window.scenario = {
    rendered,
    async scrollTo(y) { window.scrollTo(0, y); await rendered(); },
    async show(top) { await window.scenario.scrollTo(Math.max(0, top - 100)); },
    async hide() { await window.scenario.scrollTo(0); },
    async reveal(top, px) { await window.scenario.scrollTo(top - document.documentElement.clientHeight + px); },
    async settle() {
      window.beacon.flush();
      for (let answered = -1; answered !== requests.length; ) {
        answered = requests.length;
        await Promise.all(requests);
        await nextTask(); // the beacon's handlers run first: a refused batch is sent again one event at a time
      }
    },
  };
  window.ready = true;
</script>
</body>
</html>`;
}

export const box = (id: string, top: number, entity: { type?: string; id: string | number }, extra = ''): string =>
  `<div id="${id}" class="box" style="top: ${top}px" data-shop-entity-type="${entity.type ?? 'banner'}" data-shop-entity-id="${entity.id}" ${extra}></div>`;
