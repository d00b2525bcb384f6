// The module the manifest's storage provider names. It stays light: an api that does not select s3
// never loads the AWS SDK (about 34 MB of resident memory).
import type { StorageProvider, StorageRegistry } from '@shop/platform/storage';
import { s3SettingsOf } from './s3-settings.ts';

export const s3StorageProvider: StorageProvider = {
  name: 's3',
  // Unconfigured, the installed extension stays out of the way of a development api that has no object store.
  isConfigured: ({ s3 }) => s3.endpoint !== undefined || s3.bucket !== undefined,
  async create({ config }) {
    const settings = s3SettingsOf(config.s3);
    const { S3FileStorage } = await import('./s3-storage.ts');
    return new S3FileStorage(settings);
  },
};

/** Registers the `s3` provider: after `local`, it is the one used when FILE_STORAGE_PROVIDER is empty and S3_ENDPOINT or S3_BUCKET is set. */
export function register(registry: StorageRegistry): void {
  registry.register(s3StorageProvider);
}
