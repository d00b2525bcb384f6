import {
  type DomainDeps,
  DomainError,
  LIMITS,
  notFound,
  requireCurrency,
  requireDescription,
  requirePrice,
  requireSlug,
  requireText,
  type Tx,
} from '../kernel/index.ts';
import { productReferencesExist } from './product-references.ts';
import { productsChanged, productsOfBrand, productsUnderCategory } from './product-changes.ts';

/** Only the fields present change. null is refused with a clear error, except where a field says it clears. */
export interface BrandPatch {
  readonly name?: string | null;
  readonly slug?: string | null;
}

export interface CategoryPatch {
  readonly name?: string | null;
  readonly slug?: string | null;
  /** null moves the category to the top level. */
  readonly parentId?: bigint | null;
  readonly position?: number | null;
}

export interface ProductPatch {
  readonly sku?: string | null;
  readonly name?: string | null;
  readonly slug?: string | null;
  readonly description?: string | null;
  /** null leaves the product without a brand. */
  readonly brandId?: bigint | null;
  readonly price?: string | null;
  readonly currency?: string | null;
  readonly active?: boolean | null;
  /** Replaces the product's categories, in order (the first is the primary one). */
  readonly categoryIds?: readonly bigint[];
  /** Replaces the channels the product is sold in. */
  readonly channelIds?: readonly bigint[];
}

function nothingToChange(patch: object): void {
  if (Object.values(patch).every((value) => value === undefined))
    throw new DomainError('BAD_USER_INPUT', 'give at least one field to change', { field: 'input' });
}

type Rules<T> = { [K in keyof T]?: ((value: NonNullable<T[K]>) => unknown) | 'clearable' };

/** The fields of a patch that are set, each checked as on creation; null only where the rules say clearable. */
function checked<T extends object>(patch: T, rules: Rules<T>): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    const rule = rules[field as keyof T] as ((value: unknown) => unknown) | 'clearable' | undefined;
    if (value === null && rule !== 'clearable')
      throw new DomainError('BAD_USER_INPUT', `${field} cannot be null: leave it out to keep it`, { field });
    data[field] = typeof rule === 'function' ? rule(value) : value;
  }
  return data;
}

/** A new name changes how its products are found: each gets a product_changed event. */
export async function updateBrand(tx: Tx, deps: DomainDeps, id: bigint, patch: BrandPatch) {
  nothingToChange(patch);
  if ((await tx.brand.count({ where: { id } })) === 0) throw notFound('brand', id, 'id');
  const brand = await tx.brand.update({
    where: { id },
    data: checked(patch, {
      name: (name) => requireText('name', name, LIMITS.brandName),
      slug: (slug) => requireSlug(slug, LIMITS.brandSlug),
    }),
  });
  if (patch.name !== undefined) await productsChanged(tx, deps, await productsOfBrand(tx, id), 'brand_changed');
  return brand;
}

/** Its products stay, without a brand; orders keep the brand id they were placed with. */
export async function deleteBrand(tx: Tx, deps: DomainDeps, id: bigint): Promise<void> {
  const products = await productsOfBrand(tx, id);
  const { count } = await tx.brand.deleteMany({ where: { id } });
  if (count === 0) throw notFound('brand', id, 'id');
  await productsChanged(tx, deps, products, 'brand_changed');
}

/** Refuses a parent that is the category itself or one of its subcategories: the tree must stay a tree. */
async function assertValidParent(tx: Tx, id: bigint, parentId: bigint): Promise<void> {
  const ancestors = await tx.$queryRaw<{ id: bigint }[]>`
    WITH RECURSIVE chain AS (
      SELECT id, parent_id FROM categories WHERE id = ${parentId}
      UNION ALL
      SELECT c.id, c.parent_id FROM categories c JOIN chain ON c.id = chain.parent_id
    )
    SELECT id FROM chain`;
  if (ancestors.length === 0) throw notFound('parent category', parentId, 'parentId');
  if (ancestors.some((row) => row.id === id)) {
    throw new DomainError('BAD_USER_INPUT', `category ${id} cannot move under itself or one of its subcategories`, { field: 'parentId' });
  }
}

/** A new name or parent changes how the products under it are found: each gets a product_changed event. */
export async function updateCategory(tx: Tx, deps: DomainDeps, id: bigint, patch: CategoryPatch) {
  nothingToChange(patch);
  if ((await tx.category.count({ where: { id } })) === 0) throw notFound('category', id, 'id');
  if (patch.parentId !== undefined && patch.parentId !== null) await assertValidParent(tx, id, patch.parentId);
  const data = checked(patch, {
    name: (name) => requireText('name', name, LIMITS.categoryName),
    slug: (slug) => requireSlug(slug, LIMITS.categorySlug),
    parentId: 'clearable',
  });
  const category = await tx.category.update({ where: { id }, data });
  if (patch.name !== undefined || patch.parentId !== undefined)
    await productsChanged(tx, deps, await productsUnderCategory(tx, id), 'category_changed');
  return category;
}

/** Only a leaf goes: subcategories must be moved or deleted first. Products leave the category, not the catalog. */
export async function deleteCategory(tx: Tx, deps: DomainDeps, id: bigint): Promise<void> {
  const category = await tx.category.findUnique({ where: { id }, select: { _count: { select: { children: true } } } });
  if (category === null) throw notFound('category', id, 'id');
  const children = category._count.children;
  if (children > 0) {
    throw new DomainError('CONFLICT', `category ${id} has ${children} subcategories: move or delete them first`, { field: 'id' });
  }
  const products = await productsUnderCategory(tx, id);
  await tx.category.delete({ where: { id } });
  await productsChanged(tx, deps, products, 'category_changed');
}

export async function updateProduct(tx: Tx, deps: DomainDeps, id: bigint, patch: ProductPatch) {
  await productReferencesExist(tx, patch);
  nothingToChange(patch);
  const current = await tx.product.findUnique({ where: { id }, select: { price: true, currency: true } });
  if (current === null) throw notFound('product', id, 'id');
  const { categoryIds, channelIds, ...fields } = patch;
  const currency = fields.currency === undefined || fields.currency === null ? current.currency : requireCurrency(fields.currency);
  // A new currency alone must fit the price the product keeps (19.90 cannot become JPY).
  if (fields.price === undefined) requirePrice(current.price.toFixed(), currency);
  if (categoryIds !== undefined) {
    await tx.productCategory.deleteMany({ where: { productId: id } });
    await tx.productCategory.createMany({ data: categoryIds.map((categoryId, position) => ({ productId: id, categoryId, position })) });
  }
  if (channelIds !== undefined) {
    await tx.productChannel.deleteMany({ where: { productId: id } });
    await tx.productChannel.createMany({ data: channelIds.map((channelId) => ({ productId: id, channelId })) });
  }
  const data = checked(fields, {
    sku: (sku) => requireText('sku', sku, LIMITS.productSku),
    name: (name) => requireText('name', name, LIMITS.productName),
    slug: (slug) => requireSlug(slug, LIMITS.productSlug),
    description: requireDescription,
    brandId: 'clearable',
    price: (price) => requirePrice(price, currency),
    currency: requireCurrency,
  });
  const product = await tx.product.update({ where: { id }, data });
  await productsChanged(tx, deps, [id], 'updated');
  return product;
}

/**
 * A product that was ever ordered stays (its reservations are order history): deactivate it instead.
 * Otherwise it goes with its stock levels, categories, channels and the lines of carts holding it.
 */
export async function deleteProduct(tx: Tx, deps: DomainDeps, id: bigint): Promise<void> {
  const product = await tx.product.findUnique({ where: { id }, select: { _count: { select: { reservations: true } } } });
  if (product === null) throw notFound('product', id, 'id');
  if (product._count.reservations > 0) {
    throw new DomainError(
      'CONFLICT',
      `product ${id} has been ordered, so it stays in the catalog: set active to false to stop selling it`,
      { field: 'id' },
    );
  }
  await tx.cartLine.deleteMany({ where: { productId: id } });
  await tx.product.delete({ where: { id } });
  await productsChanged(tx, deps, [id], 'deleted');
}
