// The module the manifest's `config` names: the S3_* variables this extension owns. The platform reads
// them at every start (a problem stops the process with exit code 78), and `npm run storage:setup` too.
import type { ExtensionConfig } from '@shop/platform';

/**
 * The variables as set. Each may be unset: an installed extension nobody configured stays out of the
 * way of a development api (provider.ts); the provider checks what it cannot run without when selected.
 */
export interface S3Variables {
  readonly endpoint: string | undefined;
  readonly publicUrl: string | undefined;
  readonly accessKey: string | undefined;
  readonly secretKey: string | undefined;
  readonly bucket: string | undefined;
}

export const config: ExtensionConfig<S3Variables> = {
  variables: [
    {
      name: 'S3_ENDPOINT',
      description: 'S3 API URL of the `s3` file storage provider; setting it or `S3_BUCKET` makes that provider the default',
    },
    {
      name: 'S3_PUBLIC_URL',
      description: 'Base of public object URLs, `<S3_PUBLIC_URL>/<bucket>/<key>` (a CDN in front of the bucket)',
      defaultValue: 'S3_ENDPOINT',
    },
    {
      name: 'S3_ACCESS_KEY',
      description: 'Object storage access key (set with `S3_SECRET_KEY`); unset, the AWS SDK finds credentials itself (instance roles)',
      secret: true,
    },
    { name: 'S3_SECRET_KEY', description: 'Object storage secret key (set with `S3_ACCESS_KEY`)', secret: true },
    { name: 'S3_BUCKET', description: 'Bucket of the `s3` provider; `npm run storage:setup` creates it, publicly readable' },
  ],
  read(read) {
    const endpoint = read.url('S3_ENDPOINT', ['http', 'https']);
    const accessKey = read.optional('S3_ACCESS_KEY');
    const secretKey = read.optional('S3_SECRET_KEY');
    if ((accessKey === undefined) !== (secretKey === undefined)) {
      read.problem(accessKey === undefined ? 'S3_ACCESS_KEY' : 'S3_SECRET_KEY', 'must be set together with its pair');
    }
    return {
      endpoint,
      publicUrl: read.url('S3_PUBLIC_URL', ['http', 'https']) ?? endpoint,
      accessKey,
      secretKey,
      bucket: read.optional('S3_BUCKET'),
    };
  },
};
