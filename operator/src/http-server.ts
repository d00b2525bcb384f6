import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface ProbeServer {
  readonly port: number;
  close(): Promise<void>;
}

export interface ProbeChecks {
  /** Why the process should be restarted, or undefined while it is healthy. */
  readonly unhealthy: () => string | undefined;
  /** Why the process is not ready yet, or undefined once it is. */
  readonly unready: () => string | undefined;
}

/**
 * GET /metrics (Prometheus text), GET /healthz and GET /readyz. /healthz answers 200 on every
 * instance, leader or not (a follower waiting for the Lease is healthy), and 500 with the reason while
 * `unhealthy` gives one; /readyz answers 503 with the reason while `unready` gives one.
 */
export async function startProbeServer(port: number, registry: Registry, checks: ProbeChecks): Promise<ProbeServer> {
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (request.method !== 'GET') {
      response.writeHead(405, { allow: 'GET' }).end();
    } else if (path === '/healthz' || path === '/readyz') {
      const problem = path === '/healthz' ? checks.unhealthy() : checks.unready();
      const failing = path === '/healthz' ? 500 : 503;
      response.writeHead(problem === undefined ? 200 : failing, { 'content-type': 'text/plain' }).end(`${problem ?? 'ok'}\n`);
    } else if (path === '/metrics') {
      registry.metrics().then(
        (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
        () => response.writeHead(500).end(),
      );
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
