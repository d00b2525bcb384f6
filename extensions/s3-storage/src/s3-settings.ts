import { ConfigError } from '@shop/platform';
import type { S3Variables } from './config.ts';

/** The S3 variables the provider cannot run without; the keys may be left to the SDK's own chain (instance roles). */
export interface S3Settings {
  readonly endpoint: string;
  readonly publicUrl: string;
  readonly bucket: string;
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string } | undefined;
}

/** The settings, or a ConfigError naming each missing variable. */
export function s3SettingsOf(variables: S3Variables): S3Settings {
  const { endpoint, bucket, accessKey, secretKey } = variables;
  const problems = [
    ...(endpoint === undefined ? ['S3_ENDPOINT: is required by the s3 file storage provider'] : []),
    ...(bucket === undefined ? ['S3_BUCKET: is required by the s3 file storage provider'] : []),
  ];
  if (endpoint === undefined || bucket === undefined) throw new ConfigError(problems);
  return {
    endpoint,
    publicUrl: variables.publicUrl ?? endpoint,
    bucket,
    credentials: accessKey === undefined || secretKey === undefined ? undefined : { accessKeyId: accessKey, secretAccessKey: secretKey },
  };
}
