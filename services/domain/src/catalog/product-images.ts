import { randomUUID } from 'node:crypto';
import type { Prisma } from '@shop/platform';
import { StorageError, StorageInputError, type FileStorage, type SignedUpload } from '@shop/platform/storage';
import { type DomainDeps, DomainError, notFound, type Tx } from '../kernel/index.ts';
import { productsChanged } from './product-changes.ts';

/** The image types every current browser shows, with the file extension their keys end in. */
export const PRODUCT_IMAGE_TYPES: Readonly<Record<string, string>> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/avif': 'avif',
};
export const PRODUCT_IMAGE_MAX_BYTES = 10 * 1024 * 1024;
/** How long a browser has to start the upload. */
export const PRODUCT_IMAGE_UPLOAD_SECONDS = 15 * 60;

const ALLOWED_TYPES = Object.keys(PRODUCT_IMAGE_TYPES).join(', ');

/** A signed upload for one product image, and the key to give setProductImage once it is uploaded. */
export interface ProductImageUpload extends SignedUpload {
  readonly key: string;
}

export interface ProductImageRequest {
  readonly contentType: string;
  readonly sizeBytes: number;
}

/** Every image of product 7 is under `products/7/`, so setProductImage can refuse another product's upload. */
const keyPrefixOf = (productId: bigint): string => `products/${productId}/`;

/** The file extension of the key: the type must be one of PRODUCT_IMAGE_TYPES. */
function requireImageType(contentType: string): string {
  const extension = PRODUCT_IMAGE_TYPES[contentType];
  if (extension === undefined)
    throw new DomainError('BAD_USER_INPUT', `contentType must be one of ${ALLOWED_TYPES}, not ${JSON.stringify(contentType)}`, {
      field: 'contentType',
    });
  return extension;
}

function requireImageSize(sizeBytes: number): void {
  if (!Number.isInteger(sizeBytes) || sizeBytes < 1 || sizeBytes > PRODUCT_IMAGE_MAX_BYTES) {
    throw new DomainError(
      'BAD_USER_INPUT',
      `sizeBytes must be 1 to ${PRODUCT_IMAGE_MAX_BYTES} (10 MiB) for a product image, not ${sizeBytes}`,
      { field: 'sizeBytes' },
    );
  }
}

async function requireProduct(tx: Tx, productId: bigint): Promise<void> {
  if ((await tx.product.count({ where: { id: productId } })) === 0) throw notFound('product', productId, 'productId');
}

/** A bad key is the caller's mistake; a failing storage is not, and its message names what to fix (S3_BUCKET, ...). */
async function inStorage<T>(field: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof StorageInputError) throw new DomainError('BAD_USER_INPUT', error.message, { field });
    if (error instanceof StorageError)
      throw new DomainError('UNAVAILABLE', `file storage: ${error.message}`, { reason: 'FILE_STORAGE_FAILED' });
    throw error;
  }
}

/**
 * Where a browser uploads an image of the product straight to the file storage: a new key under the
 * product's prefix, signed for exactly this type and size for PRODUCT_IMAGE_UPLOAD_SECONDS. Nothing
 * changes until setProductImage names the key.
 */
export async function productImageUpload(
  tx: Tx,
  storage: FileStorage,
  productId: bigint,
  request: ProductImageRequest,
): Promise<ProductImageUpload> {
  const extension = requireImageType(request.contentType);
  requireImageSize(request.sizeBytes);
  await requireProduct(tx, productId);
  const key = `${keyPrefixOf(productId)}${randomUUID()}.${extension}`;
  const upload = await inStorage('productId', () =>
    storage.signedUploadUrl(key, {
      contentType: request.contentType,
      sizeBytes: request.sizeBytes,
      expiresInSeconds: PRODUCT_IMAGE_UPLOAD_SECONDS,
    }),
  );
  return { key, ...upload };
}

/**
 * Makes the uploaded object at `key` the product's image (null: no image), once the storage has it
 * as an allowed image type within the size limit. The previous image's object stays in the storage.
 */
export async function setProductImage(
  tx: Tx,
  deps: DomainDeps,
  storage: FileStorage,
  productId: bigint,
  key: string | null,
): Promise<Prisma.ProductModel> {
  await requireProduct(tx, productId);
  if (key !== null) {
    if (!key.startsWith(keyPrefixOf(productId))) {
      throw new DomainError(
        'BAD_USER_INPUT',
        `key must be one createProductImageUpload gave for product ${productId} (starting with ${keyPrefixOf(productId)})`,
        { field: 'key' },
      );
    }
    const stored = await inStorage('key', () => storage.head(key));
    if (stored === undefined)
      throw new DomainError('BAD_USER_INPUT', `nothing is uploaded at ${key}: PUT the file to the upload URL first`, { field: 'key' });
    // The signed upload fixed both; an object put there by other means may differ.
    if (PRODUCT_IMAGE_TYPES[stored.contentType] === undefined) {
      throw new DomainError('BAD_USER_INPUT', `the object at ${key} is ${stored.contentType}, not one of ${ALLOWED_TYPES}`, {
        field: 'key',
      });
    }
    if (stored.sizeBytes > PRODUCT_IMAGE_MAX_BYTES) {
      throw new DomainError(
        'BAD_USER_INPUT',
        `the object at ${key} has ${stored.sizeBytes} bytes, more than the ${PRODUCT_IMAGE_MAX_BYTES} (10 MiB) a product image may have`,
        { field: 'key' },
      );
    }
  }
  const product = await tx.product.update({ where: { id: productId }, data: { imageKey: key } });
  await productsChanged(tx, deps, [productId], 'updated');
  return product;
}
