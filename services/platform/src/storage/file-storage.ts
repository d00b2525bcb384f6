/** What a browser must send to upload one object straight to the storage, without the api in the way. */
export interface SignedUpload {
  readonly url: string;
  readonly method: 'PUT';
  /** Headers the request must carry exactly as given: they are part of the signature. */
  readonly headers: Readonly<Record<string, string>>;
  readonly expiresAt: Date;
}

/** The one upload a signed URL allows: this content type, exactly this many bytes, until it expires. */
export interface UploadRules {
  readonly contentType: string;
  readonly sizeBytes: number;
  readonly expiresInSeconds: number;
}

export interface StoredObject {
  readonly body: Buffer;
  readonly contentType: string;
}

/** What the storage knows of an object without reading it. */
export interface ObjectInfo {
  readonly contentType: string;
  readonly sizeBytes: number;
}

/**
 * Where uploaded files (product images, ...) live. Keys are `/`-separated paths checked by
 * `checkObjectKey`; every method refuses a bad key with a StorageInputError.
 */
export interface FileStorage {
  /** The name the provider registered under (`FILE_STORAGE_PROVIDER`). */
  readonly name: string;
  put(key: string, body: Uint8Array, contentType: string): Promise<void>;
  /** undefined when there is no such object. */
  get(key: string): Promise<StoredObject | undefined>;
  /** The object's content type and size, without its body; undefined when there is no such object. */
  head(key: string): Promise<ObjectInfo | undefined>;
  /** Deleting a missing object is not an error. */
  delete(key: string): Promise<void>;
  signedUploadUrl(key: string, rules: UploadRules): Promise<SignedUpload>;
  signedDownloadUrl(key: string, expiresInSeconds: number): Promise<string>;
  /** Where anyone may read the object; relative (`/uploads/...`) for local storage without `PUBLIC_API_BROWSER_ORIGIN`. */
  publicUrl(key: string): string;
}

/** The largest object a signed upload URL is issued for. */
export const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;
export const MAX_SIGNED_URL_SECONDS = 7 * 24 * 3600;

/** The caller asked for something no provider would do (a bad key, an oversized upload): a 4xx. */
export class StorageInputError extends Error {
  override readonly name = 'StorageInputError';
}

/** The storage itself failed (refused credentials, a missing bucket, unreachable): the message says which, without SDK internals. */
export class StorageError extends Error {
  override readonly name = 'StorageError';
}
