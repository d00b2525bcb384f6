import { exitWithConfigProblems, type Logger } from '@shop/runtime';
import type { Config } from '../config/config.ts';
import type { Platform } from '../platform.ts';
import { REPO_ROOT } from '../repository.ts';
import { discoverExtensions, type DiscoveredExtension } from './discovery.ts';
import { configureExtensions } from './extension-config.ts';
import { ExtensionError } from './extension-error.ts';
import { ExtensionLockError } from './extension-lock.ts';
import { extensionRevisionMismatch } from './extension-migrations.ts';

/**
 * The deployment's extensions, each with its configuration read from the environment. A bad manifest, lockfile or
 * config module stops the process with one line and exit code 78; so do the extensions' configuration
 * problems, one line each naming the extension and the variable, as the core's do.
 */
export async function discoverExtensionsOrExit(config: Config, logger: Logger, root = REPO_ROOT): Promise<DiscoveredExtension[]> {
  let configured: Awaited<ReturnType<typeof configureExtensions>>;
  try {
    configured = await configureExtensions(await discoverExtensions({ root, devDir: config.devExtensionsDir, logger }), process.env);
  } catch (error) {
    if (!(error instanceof ExtensionError || error instanceof ExtensionLockError)) throw error;
    logger.flush();
    return exitWithConfigProblems([error.message]);
  }
  if (configured.problems.length === 0) return configured.extensions;
  logger.flush();
  return exitWithConfigProblems(configured.problems);
}

/**
 * For the processes that never migrate (worker, consumer, schedule runner): stops with one line naming the
 * extension and both revisions, exit code 78, when an extension's database revision is not its packaged head.
 */
export async function refuseExtensionRevisionMismatch(
  platform: Pick<Platform, 'database' | 'logger'>,
  extensions: readonly DiscoveredExtension[],
): Promise<void> {
  const mismatch = await extensionRevisionMismatch(platform.database.pool, extensions);
  if (mismatch === undefined) return;
  platform.logger.flush();
  exitWithConfigProblems([mismatch]);
}
