import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import {
  checkExpiry,
  checkObjectKey,
  checkUploadRules,
  type FileStorage,
  type ObjectInfo,
  type SignedUpload,
  type StoredObject,
  type UploadRules,
} from '@shop/platform/storage';
import { storageErrorOf } from './s3-errors.ts';
import type { S3Settings } from './s3-settings.ts';

/** No S3_REGION variable: S3-compatible servers ignore the region, and it only enters the signature. */
const REGION = 'us-east-1';

export function s3ClientOf(settings: S3Settings): S3Client {
  return new S3Client({
    endpoint: settings.endpoint,
    region: REGION,
    // Buckets as the first path segment: S3-compatible servers rarely have wildcard DNS for bucket hosts.
    forcePathStyle: true,
    ...(settings.credentials === undefined ? {} : { credentials: settings.credentials }),
    // Checksums only where S3 requires them: several S3-compatible servers refuse the SDK's default trailers.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 2,
  });
}

const isNotFound = (error: unknown): boolean => {
  const { name, $metadata } = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return name === 'NotFound' || name === 'NoSuchKey' || $metadata?.httpStatusCode === 404;
};

/** Objects in S3_BUCKET; public URLs are `<S3_PUBLIC_URL>/<bucket>/<key>`, as the bucket is addressed path-style. */
export class S3FileStorage implements FileStorage {
  readonly name = 's3';
  readonly #settings: S3Settings;
  readonly #client: S3Client;

  constructor(settings: S3Settings, client: S3Client = s3ClientOf(settings)) {
    this.#settings = settings;
    this.#client = client;
  }

  async put(key: string, body: Uint8Array, contentType: string): Promise<void> {
    const command = new PutObjectCommand({ ...this.#object(key), Body: body, ContentType: contentType });
    await this.#attempt(`storing "${key}"`, () => this.#client.send(command));
  }

  get(key: string): Promise<StoredObject | undefined> {
    const command = new GetObjectCommand(this.#object(key));
    return this.#attempt(`reading "${key}"`, async () => {
      try {
        const answer = await this.#client.send(command);
        const body = Buffer.from((await answer.Body?.transformToByteArray()) ?? []);
        return { body, contentType: answer.ContentType ?? 'application/octet-stream' };
      } catch (error) {
        if ((error as { name?: string }).name === 'NoSuchKey') return undefined;
        throw error;
      }
    });
  }

  head(key: string): Promise<ObjectInfo | undefined> {
    const command = new HeadObjectCommand(this.#object(key));
    return this.#attempt(`checking "${key}"`, async () => {
      try {
        const answer = await this.#client.send(command);
        return { contentType: answer.ContentType ?? 'application/octet-stream', sizeBytes: answer.ContentLength ?? 0 };
      } catch (error) {
        if (!isNotFound(error)) throw error;
        // A HEAD answer has no body to tell a missing object from a missing bucket: ask about the bucket.
        await this.#client.send(new HeadBucketCommand({ Bucket: this.#settings.bucket })).catch((bucketError: unknown) => {
          throw isNotFound(bucketError) ? Object.assign(new Error('no such bucket'), { name: 'NoSuchBucket' }) : bucketError;
        });
        return undefined;
      }
    });
  }

  async delete(key: string): Promise<void> {
    const command = new DeleteObjectCommand(this.#object(key));
    await this.#attempt(`deleting "${key}"`, () => this.#client.send(command));
  }

  /** A presigned PUT whose signature covers the content type and the exact length, so S3 refuses any other upload. */
  async signedUploadUrl(key: string, rules: UploadRules): Promise<SignedUpload> {
    const { contentType, sizeBytes, expiresInSeconds } = checkUploadRules(rules);
    const command = new PutObjectCommand({ ...this.#object(key), ContentType: contentType, ContentLength: sizeBytes });
    const signedAt = new Date();
    const url = await getSignedUrl(this.#client, command, {
      expiresIn: expiresInSeconds,
      signingDate: signedAt,
      signableHeaders: new Set(['content-type', 'content-length']),
    });
    return {
      url,
      method: 'PUT',
      headers: { 'content-type': contentType },
      expiresAt: new Date(signedAt.getTime() + expiresInSeconds * 1000),
    };
  }

  signedDownloadUrl(key: string, expiresInSeconds: number): Promise<string> {
    return getSignedUrl(this.#client, new GetObjectCommand(this.#object(key)), { expiresIn: checkExpiry(expiresInSeconds) });
  }

  publicUrl(key: string): string {
    return `${this.#settings.publicUrl.replace(/\/$/, '')}/${this.#settings.bucket}/${checkObjectKey(key)}`;
  }

  #object(key: string): { Bucket: string; Key: string } {
    return { Bucket: this.#settings.bucket, Key: checkObjectKey(key) };
  }

  async #attempt<T>(what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw storageErrorOf(error, this.#settings, what);
    }
  }
}
