// The s3 file storage extension (docs/storage.md); its manifest's config module is ./config.ts, its storage provider ./provider.ts.
export { config as s3Config, type S3Variables } from './config.ts';
export { register, s3StorageProvider } from './provider.ts';
export { S3FileStorage, s3ClientOf } from './s3-storage.ts';
export { s3SettingsOf, type S3Settings } from './s3-settings.ts';
export { setUpBucket } from './bucket-setup.ts';
