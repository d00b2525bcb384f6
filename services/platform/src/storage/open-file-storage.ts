import { ConfigError, type Logger } from '@shop/runtime';
import type { Config } from '../config/config.ts';
import type { FileStorage } from './file-storage.ts';
import { LocalFileStorage } from './local-storage.ts';
import { StorageRegistry, type StorageProvider } from './registry.ts';

export const localStorageProvider: StorageProvider = {
  name: 'local',
  create: ({ config }) =>
    new LocalFileStorage({
      dir: config.fileStorageDir,
      secretKeys: config.secretKeyPrevious === undefined ? [config.secretKey] : [config.secretKey, config.secretKeyPrevious],
      publicOrigin: config.publicApiBrowserOrigin,
    }),
};

/** A registry holding the core's `local` provider; extensions register theirs after it, so they win when nothing is pinned. */
export function coreStorageRegistry(): StorageRegistry {
  const registry = new StorageRegistry();
  registry.register(localStorageProvider);
  return registry;
}

/**
 * The provider FILE_STORAGE_PROVIDER selects (StorageRegistry.select), built. Production never uses
 * local storage, whose files would live on one pod's disk: pinned by name it is refused (a ConfigError
 * naming the variable); merely left over because no storage extension is configured, there is no file
 * storage (undefined) and one warning says so.
 */
export async function openFileStorage(registry: StorageRegistry, config: Config, logger: Logger): Promise<FileStorage | undefined> {
  const provider = registry.select(config, logger);
  if (config.isProduction && provider.name === localStorageProvider.name) {
    const configure = `install a storage extension such as s3 and configure it (registered: ${registry.names().join(', ')})`;
    if (config.fileStorageProvider === localStorageProvider.name) {
      throw new ConfigError([
        `FILE_STORAGE_PROVIDER: local file storage is refused in production (NODE_ENV=production), its files would live on one pod's disk; ${configure}`,
      ]);
    }
    logger.warn(
      `no file storage: production does not use local storage and no storage extension is configured, so uploads are off; ${configure}`,
    );
    return undefined;
  }
  return provider.create({ config, logger });
}
