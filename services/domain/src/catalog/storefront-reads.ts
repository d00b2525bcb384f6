import { money, moneyString, notFound } from '../kernel/index.ts';

/**
 * The storefront's catalog reads (listings, a product, and the fields loaded per page) in SQL on
 * the connection pool, not through Prisma: they are most of the storefront's requests and the
 * ORM costs several times the database's own work per statement (see "Performance" in
 * docs/domain.md). Read-only, outside any transaction. Ids come back as text and become bigints
 * here (pg would give strings), prices as numeric text with the currency's decimals.
 */
export interface SqlReader {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

export interface StorefrontBrand {
  readonly id: bigint;
  readonly name: string;
  readonly slug: string;
}

export interface StorefrontCategory {
  readonly id: bigint;
  readonly parentId: bigint | null;
  readonly name: string;
  readonly slug: string;
  readonly position: number;
}

export interface StorefrontProduct {
  readonly id: bigint;
  readonly brandId: bigint | null;
  readonly sku: string;
  readonly name: string;
  readonly slug: string;
  readonly description: string;
  /** Two decimals, e.g. "19.90". */
  readonly price: string;
  readonly currency: string;
  readonly active: boolean;
  /** The image's object key in the file storage; null without an image. */
  readonly imageKey: string | null;
}

/** A category read along with a product: its parent came in the same row. */
export interface CategoryWithParent extends StorefrontCategory {
  readonly parent: StorefrontCategory | null;
}

/** A product with what a storefront shows beside it, read in the product's own row. */
export interface ProductWithRelations extends StorefrontProduct {
  readonly related: {
    readonly brand: StorefrontBrand | null;
    readonly categories: readonly CategoryWithParent[];
    readonly available: number;
  };
}

async function rowsOf<R>(sql: SqlReader, text: string, values: unknown[]): Promise<R[]> {
  return (await sql.query(text, values)).rows as R[];
}

const ids = (keys: readonly bigint[]): string[] => keys.map(String);

interface ProductRow {
  id: string;
  brand_id: string | null;
  sku: string;
  name: string;
  slug: string;
  description: string;
  price: string;
  currency: string;
  active: boolean;
  image_key: string | null;
}

const PRODUCT_COLUMNS =
  'p.id::text, p.brand_id::text, p.sku, p.name, p.slug, p.description, p.price::text, p.currency, p.active, p.image_key';

/**
 * What a storefront shows with each product, in the product's own row: its brand, its categories
 * (primary first, each with its parent) and its sellable units. A listing or a product page is then
 * one statement instead of one per field; the field loaders use these and query only for products
 * read without them.
 */
const RELATED_COLUMNS = `
  (SELECT json_build_object('id', b.id::text, 'name', b.name, 'slug', b.slug) FROM brands b WHERE b.id = p.brand_id) AS brand,
  (SELECT coalesce(json_agg(json_build_object(
            'id', c.id::text, 'parent_id', c.parent_id::text, 'name', c.name, 'slug', c.slug, 'position', c.position,
            'parent', (SELECT json_build_object('id', up.id::text, 'parent_id', up.parent_id::text, 'name', up.name, 'slug', up.slug, 'position', up.position)
                         FROM categories up WHERE up.id = c.parent_id))
          ORDER BY pc.position, pc.category_id), '[]')
     FROM product_categories pc JOIN categories c ON c.id = pc.category_id WHERE pc.product_id = p.id) AS categories,
  (SELECT coalesce(sum(s.on_hand - s.reserved), 0)::int FROM stock_levels s WHERE s.product_id = p.id) AS available`;

interface CategoryJson {
  id: string;
  parent_id: string | null;
  name: string;
  slug: string;
  position: number;
  parent?: CategoryJson | null;
}

interface RelatedRow {
  brand: { id: string; name: string; slug: string } | null;
  categories: CategoryJson[];
  available: number;
}

const withRelations = (row: ProductRow & RelatedRow): ProductWithRelations => ({
  ...productOf(row),
  related: {
    brand: row.brand === null ? null : { id: BigInt(row.brand.id), name: row.brand.name, slug: row.brand.slug },
    categories: row.categories.map((category) => ({
      ...categoryOf(category),
      parent: category.parent == null ? null : categoryOf(category.parent),
    })),
    available: row.available,
  },
});
/** What a storefront may see: active products sold in the channel ($1). */
const VISIBLE = 'p.active AND EXISTS (SELECT 1 FROM product_channels pc WHERE pc.product_id = p.id AND pc.channel_id = $1)';

const productOf = (row: ProductRow): StorefrontProduct => ({
  id: BigInt(row.id),
  brandId: row.brand_id === null ? null : BigInt(row.brand_id),
  sku: row.sku,
  name: row.name,
  slug: row.slug,
  description: row.description,
  price: moneyString(money(row.price), row.currency),
  currency: row.currency,
  active: row.active,
  imageKey: row.image_key,
});

/** `%`, `_` and `\` match themselves in a search, as in Prisma's `contains`. */
const likePattern = (text: string): string => `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;

interface ProductFilter {
  readonly channelId: bigint;
  readonly afterId?: bigint;
  readonly brandId?: bigint;
  /** Products in any of these categories. */
  readonly categoryIds?: readonly bigint[];
  /** In the name or SKU, case-insensitive. */
  readonly search?: string;
  readonly limit: number;
}

export interface StorefrontListing {
  readonly channelId: bigint;
  /** Products after this id. */
  readonly afterId?: bigint;
  readonly brandId?: bigint;
  /** The category and its subcategories. */
  readonly categoryId?: bigint;
  /** In the name or SKU, case-insensitive. */
  readonly search?: string;
  readonly limit: number;
}

/**
 * Active products sold in the channel, ordered by id, `limit` at most; NOT_FOUND naming brandId or
 * categoryId when the brand or category does not exist (an empty page would hide a wrong id).
 */
export async function storefrontProducts(sql: SqlReader, listing: StorefrontListing): Promise<ProductWithRelations[]> {
  const { categoryId, ...filter } = listing;
  if (filter.brandId !== undefined && !(await brandExists(sql, filter.brandId))) throw notFound('brand', filter.brandId, 'brandId');
  if (categoryId === undefined) return productPage(sql, filter);
  const categoryIds = await categoryAndDescendants(sql, categoryId);
  if (categoryIds.length === 0) throw notFound('category', categoryId, 'categoryId');
  return productPage(sql, { ...filter, categoryIds });
}

/** Visible products by id, with `limit` rows at most: one statement. */
async function productPage(sql: SqlReader, filter: ProductFilter): Promise<ProductWithRelations[]> {
  const values: unknown[] = [filter.channelId.toString()];
  const where = [VISIBLE];
  const parameter = (value: unknown) => `$${values.push(value)}`;
  if (filter.afterId !== undefined) where.push(`p.id > ${parameter(filter.afterId.toString())}::bigint`);
  if (filter.brandId !== undefined) where.push(`p.brand_id = ${parameter(filter.brandId.toString())}::bigint`);
  if (filter.categoryIds !== undefined) {
    where.push(
      `EXISTS (SELECT 1 FROM product_categories c WHERE c.product_id = p.id AND c.category_id = ANY(${parameter(ids(filter.categoryIds))}::bigint[]))`,
    );
  }
  if (filter.search !== undefined) {
    const pattern = parameter(likePattern(filter.search));
    where.push(`(p.name ILIKE ${pattern} OR p.sku ILIKE ${pattern})`);
  }
  const rows = await rowsOf<ProductRow & RelatedRow>(
    sql,
    `SELECT ${PRODUCT_COLUMNS}, ${RELATED_COLUMNS} FROM products p WHERE ${where.join(' AND ')} ORDER BY p.id LIMIT ${parameter(filter.limit)}`,
    values,
  );
  return rows.map(withRelations);
}

/** One visible product by id or slug, or null. */
export async function storefrontProduct(
  sql: SqlReader,
  channelId: bigint,
  by: { id: bigint } | { slug: string },
): Promise<ProductWithRelations | null> {
  const [row] = await rowsOf<ProductRow & RelatedRow>(
    sql,
    `SELECT ${PRODUCT_COLUMNS}, ${RELATED_COLUMNS} FROM products p WHERE ${VISIBLE} AND ${'id' in by ? 'p.id = $2::bigint' : 'p.slug = $2'} LIMIT 1`,
    [channelId.toString(), 'id' in by ? by.id.toString() : by.slug],
  );
  return row === undefined ? null : withRelations(row);
}

/** Products by id, visible or not (a cart line shows what it holds). */
export async function productsByIds(sql: SqlReader, keys: readonly bigint[]): Promise<Map<bigint, StorefrontProduct>> {
  const rows = await rowsOf<ProductRow>(sql, `SELECT ${PRODUCT_COLUMNS} FROM products p WHERE p.id = ANY($1::bigint[])`, [ids(keys)]);
  return new Map(rows.map((row) => [BigInt(row.id), productOf(row)]));
}

async function brandExists(sql: SqlReader, brandId: bigint): Promise<boolean> {
  return (await rowsOf(sql, 'SELECT 1 FROM brands WHERE id = $1::bigint', [brandId.toString()])).length > 0;
}

export async function brandsByIds(sql: SqlReader, keys: readonly bigint[]): Promise<Map<bigint, StorefrontBrand>> {
  const rows = await rowsOf<{ id: string; name: string; slug: string }>(
    sql,
    'SELECT id::text, name, slug FROM brands WHERE id = ANY($1::bigint[])',
    [ids(keys)],
  );
  return new Map(rows.map((row) => [BigInt(row.id), { id: BigInt(row.id), name: row.name, slug: row.slug }]));
}

interface CategoryRow {
  id: string;
  parent_id: string | null;
  name: string;
  slug: string;
  position: number;
}

const CATEGORY_COLUMNS = 'c.id::text, c.parent_id::text, c.name, c.slug, c.position';

const categoryOf = (row: CategoryRow): StorefrontCategory => ({
  id: BigInt(row.id),
  parentId: row.parent_id === null ? null : BigInt(row.parent_id),
  name: row.name,
  slug: row.slug,
  position: row.position,
});

/** The category and every category below it; empty when it does not exist. */
async function categoryAndDescendants(sql: SqlReader, categoryId: bigint): Promise<bigint[]> {
  const rows = await rowsOf<{ id: string }>(
    sql,
    `WITH RECURSIVE tree AS (
       SELECT id FROM categories WHERE id = $1::bigint
       UNION
       SELECT c.id FROM categories c JOIN tree t ON c.parent_id = t.id)
     SELECT id::text FROM tree`,
    [categoryId.toString()],
  );
  return rows.map((row) => BigInt(row.id));
}

export async function categoriesByIds(sql: SqlReader, keys: readonly bigint[]): Promise<Map<bigint, StorefrontCategory>> {
  const rows = await rowsOf<CategoryRow>(sql, `SELECT ${CATEGORY_COLUMNS} FROM categories c WHERE c.id = ANY($1::bigint[])`, [ids(keys)]);
  return new Map(rows.map((row) => [BigInt(row.id), categoryOf(row)]));
}

/** Each product's categories, primary (lowest position) first: one join. */
export async function categoriesOfProducts(sql: SqlReader, productKeys: readonly bigint[]): Promise<Map<bigint, StorefrontCategory[]>> {
  const rows = await rowsOf<CategoryRow & { product_id: string }>(
    sql,
    `SELECT pc.product_id::text, ${CATEGORY_COLUMNS}
       FROM product_categories pc JOIN categories c ON c.id = pc.category_id
      WHERE pc.product_id = ANY($1::bigint[])
      ORDER BY pc.position, pc.category_id`,
    [ids(productKeys)],
  );
  const byProduct = new Map<bigint, StorefrontCategory[]>();
  for (const row of rows) {
    const key = BigInt(row.product_id);
    byProduct.set(key, [...(byProduct.get(key) ?? []), categoryOf(row)]);
  }
  return byProduct;
}

/** Sellable units (on hand minus reserved, every location) per product. */
export async function availableUnits(sql: SqlReader, productKeys: readonly bigint[]): Promise<Map<bigint, number>> {
  const rows = await rowsOf<{ product_id: string; available: number }>(
    sql,
    'SELECT product_id::text, (sum(on_hand) - sum(reserved))::int AS available FROM stock_levels WHERE product_id = ANY($1::bigint[]) GROUP BY product_id',
    [ids(productKeys)],
  );
  return new Map(rows.map((row) => [BigInt(row.product_id), row.available]));
}
