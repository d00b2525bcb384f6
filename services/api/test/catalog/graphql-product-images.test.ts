import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresSearchEngine } from '@shop/platform';
import { reindexSearch } from '@shop/domain/search';
import { LocalFileStorage } from '@shop/platform/storage';
import { freePort } from '../../../../test/infra/proc.ts';
import { openGraphqlApi, seedDemoShop, TEST_SECRET, type GraphqlApi } from '../support/graphql-harness.ts';
import { CREATE_IMAGE_UPLOAD, openImagesApi, PNG, ProductImages, putAsBrowser } from '../support/product-images.ts';

// The api on a real port with the local provider: the browser's PUT goes to its /uploads route.
let api: GraphqlApi;
let images: ProductImages;
let origin: string;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'shop-product-images-'));
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  api = await openGraphqlApi('graphql_product_images', { FILE_STORAGE_DIR: dir, PUBLIC_API_BROWSER_ORIGIN: origin });
  await api.app.listen({ host: '127.0.0.1', port });
  const { admin, channelId } = await seedDemoShop(api);
  images = new ProductImages(api, admin, channelId);
});

afterAll(async () => {
  await api?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('product images on local storage, end to end', () => {
  it('signs an upload, takes the browser PUT at /uploads, and shows the image on the product everywhere it is read', async () => {
    const productId = await images.newProduct();
    const before = new Date();
    const upload = await images.upload(productId, 'image/png', PNG.length);
    expect(upload.key).toMatch(new RegExp(`^products/${productId}/[0-9a-f-]{36}\\.png$`));
    expect(upload.url.startsWith(`${origin}/uploads/${upload.key}?token=`)).toBe(true);
    expect(upload.method).toBe('PUT');
    expect(upload.headers).toEqual([{ name: 'content-type', value: 'image/png' }]);
    const expiresInSeconds = (new Date(upload.expiresAt).getTime() - before.getTime()) / 1000;
    expect(expiresInSeconds).toBeGreaterThan(14 * 60);
    expect(expiresInSeconds).toBeLessThanOrEqual(15 * 60 + 1);

    const put = await putAsBrowser(upload, PNG);
    expect(put.status).toBe(200);
    const since = new Date();
    const imageUrl = await images.setImage(productId, upload.key);
    expect(imageUrl).toBe(`${origin}/uploads/${upload.key}`);
    expect(await images.storefrontImageUrls(productId)).toEqual({ page: imageUrl, listing: imageUrl });

    const served = await fetch(imageUrl as string);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await served.arrayBuffer())).toEqual(PNG);

    // Consumers (search) re-read the product.
    const events = await api.prisma.outboxEvent.findMany({
      where: { name: 'shop.catalog.product_changed.v1', createdAt: { gte: since }, payload: { path: ['product_id'], equals: productId } },
    });
    expect(events.map((event) => (event.payload as { cause: string }).cause)).toEqual(['updated']);

    // The search documents hold the key; the hits make the URL (indexed as `npm run search:reindex` does).
    await reindexSearch(api.prisma, postgresSearchEngine(api.prisma));
    const sku = (await api.prisma.product.findUniqueOrThrow({ where: { id: BigInt(productId) } })).sku;
    const { searchProducts, searchAdminProducts } = await api.data<{
      searchProducts: { nodes: { id: string; imageUrl: string | null }[] };
      searchAdminProducts: { nodes: { id: string; imageUrl: string | null }[] };
    }>(
      'query ($text: String!) { searchProducts(text: $text) { nodes { id imageUrl } } searchAdminProducts(text: $text) { nodes { id imageUrl } } }',
      { text: sku },
      { ...images.admin, 'x-channel-id': 'web' },
    );
    expect(searchProducts.nodes.find((hit) => hit.id === productId)?.imageUrl).toBe(imageUrl);
    expect(searchAdminProducts.nodes.find((hit) => hit.id === productId)?.imageUrl).toBe(imageUrl);

    expect(await images.setImage(productId, null)).toBeNull();
    expect(await images.storefrontImageUrls(productId)).toEqual({ page: null, listing: null });
  });

  it('refuses a type outside the allow-list and a size over 10 MiB, naming the argument', async () => {
    const productId = await images.newProduct();
    const gif = await images.uploadError(productId, 'image/gif', 100);
    expect(gif).toMatchObject({
      message: 'contentType must be one of image/jpeg, image/png, image/webp, image/avif, not "image/gif"',
      extensions: { code: 'BAD_USER_INPUT', field: 'contentType' },
    });
    const huge = await images.uploadError(productId, 'image/jpeg', 10 * 1024 * 1024 + 1);
    expect(huge).toMatchObject({
      message: 'sizeBytes must be 1 to 10485760 (10 MiB) for a product image, not 10485761',
      extensions: { code: 'BAD_USER_INPUT', field: 'sizeBytes' },
    });
    expect(await images.uploadError('999999999', 'image/png', 100)).toMatchObject({
      extensions: { code: 'NOT_FOUND', field: 'productId' },
    });
  });

  it('has the upload route refuse a body larger than signed, so nothing is there to set', async () => {
    const productId = await images.newProduct();
    const upload = await images.upload(productId, 'image/png', PNG.length);
    const larger = await putAsBrowser(upload, Buffer.concat([PNG, PNG]));
    expect(larger.status).toBe(413);
    expect(await images.setImageError(productId, upload.key)).toMatchObject({
      message: `nothing is uploaded at ${upload.key}: PUT the file to the upload URL first`,
      extensions: { code: 'BAD_USER_INPUT', field: 'key' },
    });
  });

  it('refuses to set a key of another product, or an object that is not an allowed image', async () => {
    const [productId, otherId] = [await images.newProduct(), await images.newProduct()];
    const upload = await images.upload(otherId, 'image/png', PNG.length);
    expect((await putAsBrowser(upload, PNG)).status).toBe(200);
    expect(await images.setImageError(productId, upload.key)).toMatchObject({
      message: `key must be one createProductImageUpload gave for product ${productId} (starting with products/${productId}/)`,
      extensions: { code: 'BAD_USER_INPUT', field: 'key' },
    });

    // Put beside the api, not through a signed upload: the type is checked again when it is set.
    const storage = new LocalFileStorage({ dir, secretKeys: [TEST_SECRET], publicOrigin: origin });
    const html = `products/${productId}/page.png`;
    await storage.put(html, Buffer.from('<script>alert(1)</script>'), 'text/html');
    expect(await images.setImageError(productId, html)).toMatchObject({
      message: `the object at ${html} is text/html, not one of image/jpeg, image/png, image/webp, image/avif`,
      extensions: { code: 'BAD_USER_INPUT', field: 'key' },
    });
    expect(await images.setImageError(productId, `products/${productId}/../../etc/passwd`)).toMatchObject({
      extensions: { code: 'BAD_USER_INPUT', field: 'key' },
    });
  });

  it('is a catalog.write field: a shopper is refused', async () => {
    const productId = await images.newProduct();
    const anonymous = await api.error(CREATE_IMAGE_UPLOAD, { productId, contentType: 'image/png', sizeBytes: 10 });
    expect(anonymous.extensions.code).toBe('UNAUTHENTICATED');
  });
});

describe('product images without a file storage (production without a storage extension configured)', () => {
  let bare: { api: GraphqlApi; images: ProductImages };
  beforeAll(async () => {
    bare = await openImagesApi('graphql_product_images_none', null);
  });
  afterAll(() => bare?.api.close());

  it('answers UNAVAILABLE naming what to configure', async () => {
    const productId = await bare.images.newProduct();
    expect(await bare.images.uploadError(productId, 'image/png', 10)).toMatchObject({
      message:
        'no file storage is configured: production does not keep files on local disk; configure the s3 storage extension (S3_ENDPOINT and S3_BUCKET; S3_ACCESS_KEY and S3_SECRET_KEY unless the SDK finds credentials itself; see docs/storage.md)',
      extensions: { code: 'UNAVAILABLE', reason: 'FILE_STORAGE_NOT_CONFIGURED' },
    });
    expect(await bare.images.setImageError(productId, `products/${productId}/a.png`)).toMatchObject({
      extensions: { code: 'UNAVAILABLE', reason: 'FILE_STORAGE_NOT_CONFIGURED' },
    });
  });
});
