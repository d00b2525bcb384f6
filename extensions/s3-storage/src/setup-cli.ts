// Behind `npm run storage:setup`: creates S3_BUCKET with a public-read policy (docs/storage.md).
import { loadExtensionConfig, runCommand } from '@shop/platform';
import { setUpBucket } from './bucket-setup.ts';
import { config } from './config.ts';
import { s3ClientOf } from './s3-storage.ts';
import { s3SettingsOf } from './s3-settings.ts';

await runCommand(async () => {
  const settings = s3SettingsOf(loadExtensionConfig(config));
  const client = s3ClientOf(settings);
  try {
    const outcome = await setUpBucket(settings, client);
    console.log(
      `bucket "${settings.bucket}" at ${settings.endpoint}: ${outcome === 'created' ? 'created' : 'exists already'}, objects publicly readable`,
    );
    return 0;
  } finally {
    client.destroy();
  }
});
