import type { FastifyInstance } from 'fastify';
import { ConfigError, exitWithConfigProblems, type Config, type Logger } from '@shop/platform';
import { coreStorageRegistry, LocalFileStorage, openFileStorage, type FileStorage } from '@shop/platform/storage';
import type { StorageRegistration } from '../extensions/api-extensions.ts';
import { localUploadRoutes } from './upload-routes.ts';

/**
 * The file storage FILE_STORAGE_PROVIDER selects among `local` and the extensions' providers
 * (registered in this order), none (see openFileStorage), or the process stopped with one line naming
 * the variable (exit 78).
 */
export async function openApiFileStorage(config: Config, logger: Logger, extensions: readonly StorageRegistration[] = []): Promise<FileStorage | undefined> {
  const registry = coreStorageRegistry();
  for (const register of extensions) register(registry);
  try {
    return await openFileStorage(registry, config, logger);
  } catch (error) {
    if (error instanceof ConfigError) exitWithConfigProblems(error.problems);
    throw error;
  }
}

/** /uploads exists only while local storage is the one selected. */
export function serveFileStorage(app: FastifyInstance, storage: FileStorage | null | undefined): void {
  if (storage instanceof LocalFileStorage) localUploadRoutes(app, storage);
}
