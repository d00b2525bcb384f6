import closeWithGrace from 'close-with-grace';
import {
  discoverExtensionsOrExit,
  domainDeps,
  migrateExtensions,
  openPlatform,
  pruningLoop,
  startOutbox,
  type Config,
  type Logger,
  type Platform,
} from '@shop/platform';
import { pruneFinishedSignIns } from '@shop/domain/auth';
import { extensionSubscriptions, subscriptionListeners } from '@shop/domain/events';
import { topicSubscriptions } from '@shop/domain/subscriptions';
import { trackingListeners } from '@shop/domain/tracking';
import { buildApp } from './app.ts';
import { declarePermissions } from './auth/declare-permissions.ts';
import { loadApiExtensions } from './extensions/api-extensions.ts';
import { openApiFileStorage } from './storage/api-file-storage.ts';
import { sweepPassDeps } from '@shop/domain/flows';
import { workflowEngine } from './workflows/api-workflows.ts';
import { workflowTriggers } from './workflows/workflow-triggers.ts';

/** The api in this process: the platform, the outbox loops, the HTTP server, and their orderly stop. */
export async function serveApi(config: Config, logger: Logger): Promise<void> {
  const extensions = await discoverExtensionsOrExit(config, logger);
  let platform: Platform | undefined;
  try {
    platform = await openPlatform(config, logger, 'api');
    const opened = platform;
    const extended = await loadApiExtensions(extensions, opened.masterKeys);
    const fileStorage = (await openApiFileStorage(config, logger, extended.storage)) ?? null;
    const engine = await workflowEngine(config, logger);
    // Without a broker the outbox dispatcher runs the topic subscriptions the consumer would run;
    // the attribution listeners and the workflow triggers run here either way.
    const outbox = startOutbox(opened, {
      listeners: [
        ...subscriptionListeners([...topicSubscriptions(config), ...(await extensionSubscriptions(extensions, opened.masterKeys))]),
        ...trackingListeners,
        ...workflowTriggers(engine),
        ...extended.listeners,
      ],
    });
    const deps = domainDeps(opened, outbox.emit);
    engine.begin(() => sweepPassDeps(opened, outbox, deps));
    // The extensions' migrations need the core's tables (`npm run db:migrate`): retried with the permissions until they are there.
    const permissions = declarePermissions(opened.database.prisma, logger, {
      extensions,
      before: async () => {
        for (const [id, applied] of await migrateExtensions(opened.database.pool, extensions)) {
          logger.info(
            { extension: id, applied },
            `extension ${id}: ${applied.length === 0 ? 'migrations up to date' : `applied ${applied.join(', ')}`}`,
          );
        }
      },
    });
    const signInPruning = pruningLoop({
      name: 'refresh token pruning',
      logger,
      prune: () => pruneFinishedSignIns(opened.database.pool),
      describe: (pruned) => `deleted ${pruned} refresh tokens of sign-ins that ended`,
    });
    signInPruning.start();
    const app = await buildApp(opened, { outbox, deps, areas: extended.areas, fileStorage, extensions });

    closeWithGrace({ delay: config.shutdownTimeoutMs }, async ({ signal, err }) => {
      if (err) logger.error({ err }, 'stopping after an unhandled error');
      else logger.info({ signal }, 'stopping: finishing in-flight requests');
      await app.close();
      permissions.stop();
      await signInPruning.stop();
      await outbox.stop();
      await engine.stop();
      await opened.close();
      logger.info('stopped');
      logger.flush();
    });

    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    logger.fatal({ err: error }, 'the api could not start');
    await platform?.close();
    logger.flush();
    process.exit(1);
  }
}
