// `npm run -w @shop/storefront-example start`: the example storefront on PORT (8080), relaying
// beacons to the api at API_URL (http://127.0.0.1:3000).
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createLogger, loadOrExit } from '@shop/runtime';
import { loadStorefrontConfig } from './config.ts';
import { createStorefront } from './server.ts';

const SHUTDOWN_TIMEOUT_MS = 5_000;

const config = loadOrExit(() => loadStorefrontConfig(process.env));
const logger = createLogger({ level: config.logLevel, service: 'storefront-example' });

const server = await createStorefront({
  apiUrl: config.apiUrl,
  apiTimeoutMs: config.apiTimeoutMs,
  storefrontToken: config.storefrontToken,
  onRelayFailure: (failure) => logger.warn({ status: failure.status }, `beacon relay: ${failure.status} ${failure.message}`),
});
server.listen(config.port, config.host);
await once(server, 'listening');
const { address, port } = server.address() as AddressInfo;
const host = address.includes(':') ? `[${address}]` : address;
logger.info(`Server listening at http://${host}:${port} (api ${config.apiUrl})`);

const stop = (signal: NodeJS.Signals): void => {
  logger.info(`stopping on ${signal}`);
  setTimeout(() => process.exit(1), SHUTDOWN_TIMEOUT_MS).unref();
  server.close(() => process.exit(0));
  server.closeIdleConnections();
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
