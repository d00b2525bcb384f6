import { CreateBucketCommand, HeadBucketCommand, PutBucketPolicyCommand, type S3Client } from '@aws-sdk/client-s3';
import { storageErrorOf } from './s3-errors.ts';
import type { S3Settings } from './s3-settings.ts';

/** Anyone may read objects (product images are shown by their public URL); writing needs the keys or a presigned URL. */
function publicReadPolicy(bucket: string): string {
  return JSON.stringify({
    Version: '2012-10-17',
    Statement: [{ Sid: 'PublicRead', Effect: 'Allow', Principal: '*', Action: ['s3:GetObject'], Resource: [`arn:aws:s3:::${bucket}/*`] }],
  });
}

const nameOf = (error: unknown): string | undefined => (error as { name?: string } | null)?.name;

/** Creates S3_BUCKET unless it exists, then (again) gives it the public-read policy. Safe to run any number of times. */
export async function setUpBucket(settings: S3Settings, client: S3Client): Promise<'created' | 'existed'> {
  const { bucket } = settings;
  let step = `checking bucket "${bucket}"`;
  try {
    const existed = await client.send(new HeadBucketCommand({ Bucket: bucket })).then(
      () => true,
      (error: unknown) => {
        if (nameOf(error) === 'NotFound' || nameOf(error) === 'NoSuchBucket') return false;
        throw error;
      },
    );
    if (!existed) {
      step = `creating bucket "${bucket}"`;
      await client.send(new CreateBucketCommand({ Bucket: bucket })).catch((error: unknown) => {
        if (nameOf(error) !== 'BucketAlreadyOwnedByYou') throw error; // else another run created it in between
      });
    }
    step = `setting the public-read policy of bucket "${bucket}"`;
    await client.send(new PutBucketPolicyCommand({ Bucket: bucket, Policy: publicReadPolicy(bucket) }));
    return existed ? 'existed' : 'created';
  } catch (error) {
    throw storageErrorOf(error, settings, step);
  }
}
