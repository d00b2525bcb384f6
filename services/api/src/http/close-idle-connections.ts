import type { FastifyInstance } from 'fastify';

const SWEEP_INTERVAL_MS = 100;

/**
 * While the server drains, keep-alive connections that finish their last request would otherwise
 * stay open until the keep-alive timeout (72 s in Fastify) and hold the shutdown. Close each one as
 * soon as it turns idle.
 */
export function closeIdleConnectionsWhileDraining(app: FastifyInstance): void {
  let sweeper: NodeJS.Timeout | undefined;
  app.addHook('preClose', (done) => {
    sweeper = setInterval(() => app.server.closeIdleConnections(), SWEEP_INTERVAL_MS).unref();
    done();
  });
  app.addHook('onClose', (_instance, done) => {
    clearInterval(sweeper);
    done();
  });
}
