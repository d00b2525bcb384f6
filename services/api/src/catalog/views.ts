import type { Prisma } from '@shop/platform';
import {
  type CategoryWithParent,
  type ProductWithRelations,
  type StorefrontBrand,
  type StorefrontCategory,
  type StorefrontProduct,
} from '@shop/domain/catalog';
import { moneyString } from '@shop/domain/kernel';
import type { Product } from '../graphql/generated/resolver-types.ts';

// `key` fields keep the bigint ids the loaders need; they are not in the schema, so never sent.

export interface BrandView extends Omit<StorefrontBrand, 'id'> {
  readonly id: string;
  readonly key: bigint;
}

export const brandView = (brand: StorefrontBrand): BrandView => ({
  id: brand.id.toString(),
  key: brand.id,
  name: brand.name,
  slug: brand.slug,
});

export interface CategoryView extends Omit<StorefrontCategory, 'id' | 'parentId'> {
  readonly id: string;
  readonly key: bigint;
  readonly parentKey: bigint | null;
  /** Set when the parent was read along (a product's categories); else the parent loader reads it. */
  readonly preloadedParent?: CategoryView | null;
}

export const categoryView = (category: StorefrontCategory): CategoryView => ({
  id: category.id.toString(),
  key: category.id,
  parentKey: category.parentId,
  name: category.name,
  slug: category.slug,
  position: category.position,
});

const categoryWithParentView = (category: CategoryWithParent): CategoryView => ({
  ...categoryView(category),
  preloadedParent: category.parent === null ? null : categoryView(category.parent),
});

export interface ProductView extends Omit<StorefrontProduct, 'id' | 'brandId'> {
  readonly id: string;
  readonly key: bigint;
  readonly brandKey: bigint | null;
  /** Set when the product was read with them (listings, a product page); else the loaders read them. */
  readonly preloaded?: { readonly brand: BrandView | null; readonly categories: readonly CategoryView[]; readonly available: number };
}

/** The fields of the GraphQL Product that resolvers give from the view's keys rather than the view itself. */
type ResolvedProductField = '__typename' | 'brand' | 'categories' | 'available' | 'imageUrl';
type NoneMissing<Missing extends never> = Missing;
/** Compiles only while the view carries every other field of the GraphQL Product: a field added to the schema must reach it. */
export type ProductViewCoversTheSchema = NoneMissing<Exclude<keyof Product, keyof ProductView | ResolvedProductField>>;

export const productView = (product: StorefrontProduct): ProductView => ({
  id: product.id.toString(),
  key: product.id,
  brandKey: product.brandId,
  sku: product.sku,
  name: product.name,
  slug: product.slug,
  description: product.description,
  price: product.price,
  currency: product.currency,
  active: product.active,
  imageKey: product.imageKey,
});

export const storefrontProductView = (product: ProductWithRelations): ProductView => ({
  ...productView(product),
  preloaded: {
    brand: product.related.brand === null ? null : brandView(product.related.brand),
    categories: product.related.categories.map(categoryWithParentView),
    available: product.related.available,
  },
});

/** A product as the admin mutations return it (Prisma's Decimal price). */
export const productModelView = (product: Prisma.ProductModel): ProductView =>
  productView({ ...product, price: moneyString(product.price, product.currency) });

export const channelView = (channel: Prisma.ChannelModel) => ({
  id: channel.id.toString(),
  code: channel.code,
  name: channel.name,
  defaultCurrency: channel.defaultCurrency,
});
