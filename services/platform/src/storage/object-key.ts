import { MAX_SIGNED_URL_SECONDS, MAX_UPLOAD_BYTES, StorageInputError, type UploadRules } from './file-storage.ts';

const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
const MAX_KEY_LENGTH = 512;

/**
 * Accepts `/`-separated keys of letters, digits, `.`, `_` and `-` whose segments do not start with a
 * dot: no `..`, no absolute path, no hidden file, nothing a filesystem or URL would read differently.
 */
export function checkObjectKey(key: string): string {
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) throw new StorageInputError(`object key must be 1 to ${MAX_KEY_LENGTH} characters`);
  const bad = key.split('/').find((segment) => !SEGMENT.test(segment));
  if (bad !== undefined) {
    throw new StorageInputError(
      `object key "${key}" is not allowed: segments are letters, digits, ".", "_" and "-", not starting with "." (bad segment "${bad}")`,
    );
  }
  return key;
}

const CONTENT_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/;

export function checkUploadRules(rules: UploadRules): UploadRules {
  if (!CONTENT_TYPE.test(rules.contentType))
    throw new StorageInputError(`content type "${rules.contentType}" is not a lowercase type/subtype without parameters`);
  if (!Number.isInteger(rules.sizeBytes) || rules.sizeBytes < 1 || rules.sizeBytes > MAX_UPLOAD_BYTES) {
    throw new StorageInputError(`upload size must be 1 to ${MAX_UPLOAD_BYTES} bytes (got ${rules.sizeBytes})`);
  }
  checkExpiry(rules.expiresInSeconds);
  return rules;
}

export function checkExpiry(expiresInSeconds: number): number {
  if (!Number.isInteger(expiresInSeconds) || expiresInSeconds < 1 || expiresInSeconds > MAX_SIGNED_URL_SECONDS) {
    throw new StorageInputError(`a signed URL must expire in 1 to ${MAX_SIGNED_URL_SECONDS} seconds (got ${expiresInSeconds})`);
  }
  return expiresInSeconds;
}
