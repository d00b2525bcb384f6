import type { FastifyInstance } from 'fastify';
import type { MercuriusContext } from 'mercurius';
import { ConfigError, exitWithConfigProblems, type Config, type Logger } from '@shop/platform';
import { DomainError } from '@shop/domain/kernel';
import { coreStorageRegistry, LocalFileStorage, openFileStorage, type FileStorage } from '@shop/platform/storage';
import type { StorageRegistration } from '../extensions/api-extensions.ts';
import { localUploadRoutes } from './upload-routes.ts';

/**
 * The file storage FILE_STORAGE_PROVIDER selects among `local` and the extensions' providers
 * (registered in this order), none (see openFileStorage), or the process stopped with one line naming
 * the variable (exit 78).
 */
export async function openApiFileStorage(
  config: Config,
  logger: Logger,
  extensions: readonly StorageRegistration[] = [],
): Promise<FileStorage | undefined> {
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
export function serveFileStorage(app: FastifyInstance, storage: FileStorage | null): void {
  if (storage instanceof LocalFileStorage) localUploadRoutes(app, storage);
}

/** The file storage of an operation that needs one; without one (production, no storage extension configured) UNAVAILABLE says what to configure. */
export function requireFileStorage(context: MercuriusContext): FileStorage {
  const storage = context.shop.services.fileStorage;
  if (storage !== null) return storage;
  throw new DomainError(
    'UNAVAILABLE',
    'no file storage is configured: production does not keep files on local disk; configure the s3 storage extension (S3_ENDPOINT and S3_BUCKET; S3_ACCESS_KEY and S3_SECRET_KEY unless the SDK finds credentials itself; see docs/storage.md)',
    { reason: 'FILE_STORAGE_NOT_CONFIGURED' },
  );
}

/** The public URL of an image's object key; null without a key, or without a file storage to serve it. */
export function imageUrlOf(context: MercuriusContext, key: string | null | undefined): string | null {
  return key == null ? null : (context.shop.services.fileStorage?.publicUrl(key) ?? null);
}
