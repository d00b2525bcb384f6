// File storage: the provider interface, the registry providers register in, and the core's local provider (docs/storage.md).
export {
  MAX_SIGNED_URL_SECONDS,
  MAX_UPLOAD_BYTES,
  StorageError,
  StorageInputError,
  type FileStorage,
  type ObjectInfo,
  type SignedUpload,
  type StoredObject,
  type UploadRules,
} from './file-storage.ts';
export { checkExpiry, checkObjectKey, checkUploadRules } from './object-key.ts';
export { StorageRegistry, type StorageProvider, type StorageProviderContext } from './registry.ts';
export { LocalFileStorage, UPLOADS_PATH, type LocalFile, type LocalStorageOptions } from './local-storage.ts';
export { UploadTokenError, UploadTokens, type UploadGrant } from './upload-token.ts';
export { coreStorageRegistry, localStorageProvider, openFileStorage } from './open-file-storage.ts';
