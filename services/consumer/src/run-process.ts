import type { FastifyInstance } from 'fastify';
import {
  createLogger,
  discoverExtensionsOrExit,
  gracefulStop,
  loadConfigOrExit,
  openPlatform,
  refuseExtensionRevisionMismatch,
  type Config,
  type Platform,
} from '@shop/platform';
import { extensionSubscriptions } from '@shop/domain/events';
import type { ConsumerGroupDefinition } from './group-definition.ts';
import { consumerGroupOf } from './groups.ts';
import { startConsumerService, type ConsumerService, type ConsumerServiceOptions } from './consumer-service.ts';
import { GroupTakenError } from './group-lock.ts';
import { buildConsumerApp } from './http-app.ts';
import { registerAdminSearchFreshness } from './search-freshness.ts';
import { loadConsumerSettingsOrExit } from './settings.ts';

/** EX_TEMPFAIL from sysexits.h: another instance runs one of the groups; starting later may work. */
export const EXIT_GROUP_TAKEN = 75;

export interface ConsumerProcessOptions {
  /** The groups to run, from the process's configuration. */
  readonly groups: (config: Config) => readonly ConsumerGroupDefinition[];
  readonly service?: Omit<ConsumerServiceOptions, 'onFatal'>;
}

interface Started {
  platform?: Platform;
  service?: ConsumerService;
  app?: FastifyInstance;
}

/**
 * The consumer process: configuration, platform, consumer groups (`options.groups`, then one per extension
 * consumer handler) and the probe/metrics server, with
 * a graceful stop on SIGTERM/SIGINT (groups first, so the messages in hand finish and commit, then
 * the locks, the server and the platform). Exits 75 when another instance runs one of the groups,
 * 1 when the groups can no longer run safely, 0 without a broker (nothing to consume).
 */
export async function runConsumerProcess(options: ConsumerProcessOptions): Promise<void> {
  const config = loadConfigOrExit();
  const settings = loadConsumerSettingsOrExit(config);
  const logger = createLogger({ level: config.logLevel, service: 'consumer' });
  if (config.brokers === undefined) {
    logger.info(
      'BROKER_ADDRESS is not set: there is no Kafka to consume from; exiting ' +
        "(in embedded mode the api's outbox dispatcher hands topic events to its registered listeners, not to these consumer groups)",
    );
    logger.flush();
    process.exit(0);
  }
  const extensions = await discoverExtensionsOrExit(config, logger);

  const started: Started = {};
  const { exitAfterStopping } = gracefulStop(
    { logger, timeoutMs: config.shutdownTimeoutMs, stoppingMessage: 'stopping: finishing the messages in hand' },
    async () => {
      await started.service?.stop();
      await started.app?.close();
      await started.platform?.close();
    },
  );

  try {
    started.platform = await openPlatform(config, logger, 'consumer');
    // The consumer never migrates: it refuses an extension's database at another revision than its package's head.
    await refuseExtensionRevisionMismatch(started.platform, extensions);
    registerAdminSearchFreshness(started.platform.metrics, started.platform.database.prisma, config);
    const groups = [
      ...options.groups(config),
      ...(await extensionSubscriptions(extensions, started.platform.masterKeys)).map(consumerGroupOf),
    ];
    started.service = await startConsumerService(started.platform, groups, {
      ...options.service,
      processedEventsRetentionHours: config.processedEventsRetentionHours,
      onFatal: (error) => {
        logger.error({ err: error }, `stopping: ${error.message}`);
        void exitAfterStopping(1);
      },
    });
    started.app = buildConsumerApp(started.platform, started.service);
    await started.app.listen({ host: config.host, port: settings.port });
  } catch (error) {
    const groupTaken = error instanceof GroupTakenError;
    if (groupTaken) logger.error({ group: error.groupId }, error.message);
    else logger.fatal({ err: error }, 'the consumer could not start');
    await exitAfterStopping(groupTaken ? EXIT_GROUP_TAKEN : 1);
  }
}
