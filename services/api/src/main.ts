import cluster from 'node:cluster';
import { createLogger, loadConfigOrExit } from '@shop/platform';
import { runPrimary } from './cluster/primary.ts';
import { serveApi } from './serve.ts';

const config = loadConfigOrExit();
const logger = createLogger({ level: config.logLevel, service: 'api' });

if (config.apiWorkers > 1 && cluster.isPrimary)
  runPrimary({ workers: config.apiWorkers, shutdownTimeoutMs: config.shutdownTimeoutMs, logger });
else await serveApi(config, cluster.isWorker ? logger.child({ worker: cluster.worker?.id }) : logger);
