// The module the manifest's storage provider names. It stays light: an api that does not select s3
// never loads the AWS SDK (about 34 MB of resident memory).
import type { ExtensionContext } from '@shop/platform';
import type { StorageProvider, StorageRegistry } from '@shop/platform/storage';
import type { S3Variables } from './config.ts';
import { s3SettingsOf } from './s3-settings.ts';

/** The `s3` provider over the variables the platform read at start (config.ts). */
export function s3StorageProvider(variables: S3Variables): StorageProvider {
  return {
    name: 's3',
    // Unconfigured, the installed extension stays out of the way of a development api that has no object store.
    isConfigured: () => variables.endpoint !== undefined || variables.bucket !== undefined,
    async create() {
      const settings = s3SettingsOf(variables);
      const { S3FileStorage } = await import('./s3-storage.ts');
      return new S3FileStorage(settings);
    },
  };
}

/** Registers the `s3` provider: after `local`, it is the one used when FILE_STORAGE_PROVIDER is empty and S3_ENDPOINT or S3_BUCKET is set. */
export function register(registry: StorageRegistry, { config }: Pick<ExtensionContext<S3Variables>, 'config'>): void {
  registry.register(s3StorageProvider(config));
}
