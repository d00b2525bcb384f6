// Product images through the api with the s3 provider against a real versitygw: the browser uploads to the store itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, loadConfig, loadExtensionConfig } from '@shop/platform';
import { coreStorageRegistry, openFileStorage, type FileStorage } from '@shop/platform/storage';
import { startVersityGw, type S3ServerHandle } from '../../../test/infra/versitygw.ts';
import { openGraphqlApi, seedDemoShop, type GraphqlApi } from '../../../services/api/test/support/graphql-harness.ts';
import { openImagesApi, PNG, ProductImages, putAsBrowser } from '../../../services/api/test/support/product-images.ts';
import { register, s3ClientOf, s3Config, s3SettingsOf, setUpBucket } from '../src/index.ts';

const BUCKET = 'product-media';
const logger = createLogger({ level: 'ERROR', service: 'test' });

let server: S3ServerHandle;
let storage: FileStorage;
let api: GraphqlApi;
let images: ProductImages;

const s3Env = (): Record<string, string> => ({
  S3_ENDPOINT: server.url,
  S3_ACCESS_KEY: server.accessKey,
  S3_SECRET_KEY: server.secretKey,
  S3_BUCKET: BUCKET,
});

/** The s3 provider as the api selects it (registered after local, FILE_STORAGE_PROVIDER empty), from these variables. */
async function s3StorageOf(overrides: Record<string, string> = {}): Promise<FileStorage> {
  const env = { ...s3Env(), ...overrides };
  const registry = coreStorageRegistry();
  register(registry, { config: loadExtensionConfig(s3Config, env) });
  const selected = await openFileStorage(registry, loadConfig(env), logger);
  if (selected?.name !== 's3') throw new Error(`the s3 provider was not selected (got ${selected?.name})`);
  return selected;
}

beforeAll(async () => {
  server = await startVersityGw();
  storage = await s3StorageOf();
  const settings = s3SettingsOf(loadExtensionConfig(s3Config, s3Env()));
  const client = s3ClientOf(settings);
  await setUpBucket(settings, client).finally(() => client.destroy());
  api = await openGraphqlApi('s3_product_images', {}, { fileStorage: storage });
  const { admin, channelId } = await seedDemoShop(api);
  images = new ProductImages(api, admin, channelId);
}, 120_000);

afterAll(async () => {
  await api?.close();
  await server?.dispose();
});

describe('product images on S3 (versitygw), end to end', () => {
  it('presigns the upload, the browser PUTs it to the store, and the product shows a public URL that serves the bytes', async () => {
    const productId = await images.newProduct();
    const upload = await images.upload(productId, 'image/webp', PNG.length);
    expect(upload.url.startsWith(`${server.url}/${BUCKET}/${upload.key}?`)).toBe(true);
    expect(upload.key).toMatch(new RegExp(`^products/${productId}/[0-9a-f-]{36}\\.webp$`));
    expect(upload.headers).toEqual([{ name: 'content-type', value: 'image/webp' }]);

    const put = await putAsBrowser(upload, PNG);
    expect(put.status).toBe(200);
    const imageUrl = await images.setImage(productId, upload.key);
    expect(imageUrl).toBe(`${server.url}/${BUCKET}/${upload.key}`);
    expect(await images.storefrontImageUrls(productId)).toEqual({ page: imageUrl, listing: imageUrl });

    const anonymous = await fetch(imageUrl as string);
    expect(anonymous.status).toBe(200);
    expect(anonymous.headers.get('content-type')).toBe('image/webp');
    expect(Buffer.from(await anonymous.arrayBuffer())).toEqual(PNG);
  });

  it('has the store refuse a body or type other than signed, so nothing is there to set', async () => {
    const productId = await images.newProduct();
    const upload = await images.upload(productId, 'image/png', PNG.length);
    const larger = await putAsBrowser(upload, Buffer.concat([PNG, PNG]));
    const otherType = await fetch(upload.url, { method: 'PUT', headers: { 'content-type': 'text/html' }, body: PNG });
    expect([larger.status, otherType.status]).toEqual([403, 403]);
    expect(await images.setImageError(productId, upload.key)).toMatchObject({
      message: `nothing is uploaded at ${upload.key}: PUT the file to the upload URL first`,
      extensions: { code: 'BAD_USER_INPUT', field: 'key' },
    });
  });

  it('refuses an object of another type put at a product key by other means', async () => {
    const productId = await images.newProduct();
    const key = `products/${productId}/notes.png`;
    await storage.put(key, Buffer.from('not an image'), 'text/plain');
    expect(await images.setImageError(productId, key)).toMatchObject({
      message: `the object at ${key} is text/plain, not one of image/jpeg, image/png, image/webp, image/avif`,
      extensions: { code: 'BAD_USER_INPUT', field: 'key' },
    });
  });

  it.each([
    [
      'a wrong secret key',
      { S3_SECRET_KEY: 'not-the-secret' },
      () => `S3 at ${server.url} refused the credentials (S3_ACCESS_KEY, S3_SECRET_KEY): HTTP 403`,
    ],
    [
      'a missing bucket',
      { S3_BUCKET: 'absent' },
      () => `bucket "absent" does not exist at ${server.url} (S3_BUCKET); create it with npm run storage:setup`,
    ],
  ])('answers UNAVAILABLE naming the variables for %s, and changes nothing', async (what, overrides, problem) => {
    const broken = await openImagesApi(`s3_product_images_${what.replaceAll(' ', '_')}`, await s3StorageOf(overrides));
    try {
      const productId = await broken.images.newProduct();
      const key = `products/${productId}/front.png`;
      expect(await broken.images.setImageError(productId, key)).toMatchObject({
        message: `file storage: checking "${key}": ${problem()}`,
        extensions: { code: 'UNAVAILABLE', reason: 'FILE_STORAGE_FAILED' },
      });
      const product = await broken.api.prisma.product.findUniqueOrThrow({ where: { id: BigInt(productId) } });
      expect(product.imageKey).toBeNull();
    } finally {
      await broken.api.close();
    }
  });
});
