// Product images through GraphQL as a staff client and a browser drive them, for the local and the s3 provider's tests.
import { expect } from 'vitest';
import type { FileStorage } from '@shop/platform/storage';
import { openGraphqlApi, type GraphqlApi } from './graphql-harness.ts';

/** The 16 bytes a PNG file starts with: the storage checks types by the signed Content-Type, not the bytes. */
export const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

export interface ImageUpload {
  readonly key: string;
  readonly url: string;
  readonly method: string;
  readonly headers: readonly { readonly name: string; readonly value: string }[];
  readonly expiresAt: string;
}

const CREATE_PRODUCT = 'mutation ($input: ProductInput!) { createProduct(input: $input) { id imageUrl } }';
export const CREATE_IMAGE_UPLOAD =
  'mutation ($productId: ID!, $contentType: String!, $sizeBytes: Int!) { createProductImageUpload(productId: $productId, contentType: $contentType, sizeBytes: $sizeBytes) { key url method headers { name value } expiresAt } }';
export const SET_IMAGE = 'mutation ($productId: ID!, $key: String) { setProductImage(productId: $productId, key: $key) { id imageUrl } }';
const STOREFRONT_PRODUCT = 'query ($id: ID!) { product(id: $id) { imageUrl } }';
const STOREFRONT_LISTING = 'query ($search: String!) { products(search: $search) { nodes { id imageUrl } } }';

/** A staff client of the api: the seeded admin, selling in the web channel. */
export class ProductImages {
  readonly api: GraphqlApi;
  readonly admin: Record<string, string>;
  readonly channelId: string;
  #serial = 0;

  constructor(api: GraphqlApi, admin: Record<string, string>, channelId: string) {
    this.api = api;
    this.admin = admin;
    this.channelId = channelId;
  }

  /** A new active product of the web channel, without an image; its id. */
  async newProduct(): Promise<string> {
    const slug = `imaged-product-${(this.#serial += 1)}`;
    const input = { sku: slug.toUpperCase(), name: slug, slug, price: '12.50', currency: 'EUR', channelIds: [this.channelId] };
    const { createProduct } = await this.api.data<{ createProduct: { id: string; imageUrl: string | null } }>(
      CREATE_PRODUCT,
      { input },
      this.admin,
    );
    expect(createProduct.imageUrl).toBeNull();
    return createProduct.id;
  }

  async upload(productId: string, contentType: string, sizeBytes: number): Promise<ImageUpload> {
    return (
      await this.api.data<{ createProductImageUpload: ImageUpload }>(CREATE_IMAGE_UPLOAD, { productId, contentType, sizeBytes }, this.admin)
    ).createProductImageUpload;
  }

  async setImage(productId: string, key: string | null): Promise<string | null> {
    return (await this.api.data<{ setProductImage: { imageUrl: string | null } }>(SET_IMAGE, { productId, key }, this.admin))
      .setProductImage.imageUrl;
  }

  /** The first error of a setProductImage that must fail. */
  setImageError(productId: string, key: string) {
    return this.api.error(SET_IMAGE, { productId, key }, this.admin);
  }

  /** The first error of a createProductImageUpload that must fail. */
  uploadError(productId: string, contentType: string, sizeBytes: number) {
    return this.api.error(CREATE_IMAGE_UPLOAD, { productId, contentType, sizeBytes }, this.admin);
  }

  /** imageUrl as a storefront reads it: the product page and the listing. */
  async storefrontImageUrls(productId: string): Promise<{ page: string | null; listing: string | null }> {
    const web = { 'x-channel-id': 'web' };
    const { product } = await this.api.data<{ product: { imageUrl: string | null } }>(STOREFRONT_PRODUCT, { id: productId }, web);
    const sku = (await this.api.prisma.product.findUniqueOrThrow({ where: { id: BigInt(productId) } })).sku;
    const { products } = await this.api.data<{ products: { nodes: { id: string; imageUrl: string | null }[] } }>(
      STOREFRONT_LISTING,
      { search: sku },
      web,
    );
    const listed = products.nodes.find((node) => node.id === productId);
    if (listed === undefined) throw new Error(`product ${productId} is not in the storefront listing`);
    return { page: product.imageUrl, listing: listed.imageUrl };
  }
}

/** The upload as a browser sends it: the method and headers the mutation gave, the file as the body. */
export function putAsBrowser(upload: ImageUpload, body: Buffer): Promise<Response> {
  return fetch(upload.url, {
    method: upload.method,
    headers: Object.fromEntries(upload.headers.map(({ name, value }) => [name, value])),
    body,
  });
}

/** An api of its own database with this file storage (null: none), a web channel and the admin signed in, without the demo catalog. */
export async function openImagesApi(name: string, fileStorage: FileStorage | null): Promise<{ api: GraphqlApi; images: ProductImages }> {
  const api = await openGraphqlApi(name, {}, { fileStorage });
  const channel = await api.prisma.channel.create({ data: { code: 'web', name: 'Web', defaultCurrency: 'EUR' } });
  return { api, images: new ProductImages(api, await api.adminHeaders(), channel.id.toString()) };
}
