import {
  type DomainDeps,
  DomainError,
  LIMITS,
  requireCurrency,
  requireDescription,
  requirePrice,
  requireSlug,
  requireText,
  type Tx,
} from '../kernel/index.ts';
import { productsChanged } from './product-changes.ts';
import { productReferencesExist } from './product-references.ts';

export interface ChannelInput {
  readonly code: string;
  readonly name: string;
  readonly defaultCurrency: string;
}

export async function createChannel(tx: Tx, input: ChannelInput) {
  return tx.channel.create({
    data: {
      code: requireText('code', input.code, LIMITS.channelCode),
      name: requireText('name', input.name, LIMITS.channelName),
      defaultCurrency: requireCurrency(input.defaultCurrency),
    },
  });
}

export interface BrandInput {
  readonly name: string;
  readonly slug: string;
}

export async function createBrand(tx: Tx, input: BrandInput) {
  return tx.brand.create({
    data: { name: requireText('name', input.name, LIMITS.brandName), slug: requireSlug(input.slug, LIMITS.brandSlug) },
  });
}

export interface CategoryInput {
  readonly name: string;
  readonly slug: string;
  readonly parentId?: bigint;
  readonly position?: number;
}

export async function createCategory(tx: Tx, input: CategoryInput) {
  if (input.parentId !== undefined && (await tx.category.count({ where: { id: input.parentId } })) === 0) {
    throw new DomainError('NOT_FOUND', `parent category ${input.parentId} does not exist`, { field: 'parentId' });
  }
  return tx.category.create({
    data: {
      name: requireText('name', input.name, LIMITS.categoryName),
      slug: requireSlug(input.slug, LIMITS.categorySlug),
      parentId: input.parentId ?? null,
      position: input.position ?? 0,
    },
  });
}

export interface ProductInput {
  readonly sku: string;
  readonly name: string;
  readonly slug: string;
  readonly description?: string;
  readonly brandId?: bigint;
  /** Decimal string, e.g. "19.90". */
  readonly price: string;
  readonly currency: string;
  readonly active?: boolean;
  /** In order: the first is the category reported in order lines and attribution. */
  readonly categoryIds?: readonly bigint[];
  readonly channelIds?: readonly bigint[];
}

export async function createProduct(tx: Tx, deps: DomainDeps, input: ProductInput) {
  await productReferencesExist(tx, input);
  // Every field of ProductInput checked here: one added to the input and not handled does not compile.
  const { categoryIds, channelIds, ...columns } = {
    sku: requireText('sku', input.sku, LIMITS.productSku),
    name: requireText('name', input.name, LIMITS.productName),
    slug: requireSlug(input.slug, LIMITS.productSlug),
    description: requireDescription(input.description ?? ''),
    brandId: input.brandId ?? null,
    price: requirePrice(input.price, requireCurrency(input.currency)),
    currency: input.currency,
    active: input.active ?? true,
    categoryIds: input.categoryIds ?? [],
    channelIds: input.channelIds ?? [],
  } satisfies Record<keyof ProductInput, unknown>;
  const product = await tx.product.create({
    data: {
      ...columns,
      categories: { create: categoryIds.map((categoryId, position) => ({ categoryId, position })) },
      channels: { create: channelIds.map((channelId) => ({ channelId })) },
    },
  });
  await productsChanged(tx, deps, [product.id], 'created');
  return product;
}
