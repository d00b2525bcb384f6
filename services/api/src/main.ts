import closeWithGrace from 'close-with-grace';
import { createLogger, loadConfigOrExit, openPlatform } from '@shop/platform';
import { buildApp } from './app.ts';

const config = loadConfigOrExit();
const logger = createLogger({ level: config.logLevel, service: 'api' });

try {
  const platform = await openPlatform(config, logger, 'api');
  const app = await buildApp(platform);

  closeWithGrace({ delay: config.shutdownTimeoutMs }, async ({ signal, err }) => {
    if (err) logger.error({ err }, 'stopping after an unhandled error');
    else logger.info({ signal }, 'stopping: finishing in-flight requests');
    await app.close();
    await platform.close();
    logger.info('stopped');
    logger.flush();
  });

  await app.listen({ host: config.host, port: config.port });
} catch (error) {
  logger.fatal({ err: error }, 'the api could not start');
  logger.flush();
  process.exitCode = 1;
}
