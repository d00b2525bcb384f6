import { StorageError } from '@shop/platform/storage';
import type { S3Settings } from './s3-settings.ts';

// XAdminUserNotFound is versitygw's answer to an unknown access key, where S3 answers InvalidAccessKeyId.
const CREDENTIAL_ERRORS = new Set([
  'InvalidAccessKeyId',
  'XAdminUserNotFound',
  'SignatureDoesNotMatch',
  'AccessDenied',
  'InvalidSecurity',
  'CredentialsProviderError',
]);
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH']);

interface SdkError {
  readonly name?: string;
  readonly code?: string;
  readonly message?: string;
  readonly $metadata?: { readonly httpStatusCode?: number };
}

/** An SDK failure as one StorageError line naming what to fix, instead of an SDK stack. */
export function storageErrorOf(error: unknown, settings: S3Settings, what: string): StorageError {
  const { name = 'Error', code, message = '', $metadata } = (error ?? {}) as SdkError;
  const at = `S3 at ${settings.endpoint}`;
  if (name === 'NoSuchBucket') {
    return new StorageError(
      `${what}: bucket "${settings.bucket}" does not exist at ${settings.endpoint} (S3_BUCKET); create it with npm run storage:setup`,
    );
  }
  // An answer to HEAD has no body, so no error name: the SDK calls it Unknown.
  if (CREDENTIAL_ERRORS.has(name) || $metadata?.httpStatusCode === 403) {
    return new StorageError(
      `${what}: ${at} refused the credentials (S3_ACCESS_KEY, S3_SECRET_KEY): ${name === 'Unknown' ? 'HTTP 403' : name}`,
    );
  }
  const network = code ?? (error as { cause?: SdkError } | undefined)?.cause?.code;
  if (network !== undefined && NETWORK_CODES.has(network))
    return new StorageError(`${what}: ${at} is unreachable (S3_ENDPOINT): ${network}`);
  return new StorageError(`${what}: ${at} answered ${name}${message === '' || message === name ? '' : `: ${message}`}`);
}
