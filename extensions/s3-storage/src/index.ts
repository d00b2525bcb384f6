// The s3 file storage extension: its manifest's storage provider points here (docs/storage.md).
import type { StorageProvider, StorageRegistry } from '@shop/platform/storage';
import { S3FileStorage } from './s3-storage.ts';
import { s3SettingsOf } from './s3-settings.ts';

export const s3StorageProvider: StorageProvider = {
  name: 's3',
  // Unconfigured, the installed extension stays out of the way of a development api that has no object store.
  isConfigured: ({ s3 }) => s3.endpoint !== undefined || s3.bucket !== undefined,
  create: ({ config }) => new S3FileStorage(s3SettingsOf(config.s3)),
};

/** Registers the `s3` provider: after `local`, it is the one used when FILE_STORAGE_PROVIDER is empty and S3_ENDPOINT or S3_BUCKET is set. */
export function register(registry: StorageRegistry): void {
  registry.register(s3StorageProvider);
}

export { S3FileStorage, s3ClientOf } from './s3-storage.ts';
export { s3SettingsOf, type S3Settings } from './s3-settings.ts';
export { setUpBucket } from './bucket-setup.ts';
