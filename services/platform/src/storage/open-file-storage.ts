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
 * The provider FILE_STORAGE_PROVIDER selects (StorageRegistry.select), built. Production refuses
 * local storage: its files live on one pod's disk. Throws a ConfigError naming the variable.
 */
export function openFileStorage(registry: StorageRegistry, config: Config, logger: Logger): FileStorage {
  const provider = registry.select(config, logger);
  if (config.isProduction && provider.name === localStorageProvider.name) {
    throw new ConfigError([
      `FILE_STORAGE_PROVIDER: local file storage is refused in production (NODE_ENV=production), its files would live on one pod's disk; install a storage extension such as s3 and select it (registered: ${registry.names().join(', ')})`,
    ]);
  }
  return provider.create({ config, logger });
}
