import type { Prisma } from '@shop/platform';
import type { Tx } from '../kernel/index.ts';

const CATEGORY_ORDER = [{ position: 'asc' }, { id: 'asc' }] as const satisfies Prisma.CategoryOrderByWithRelationInput[];

/** The top-level categories by position. */
export async function topCategories(db: Tx) {
  return db.category.findMany({ where: { parentId: null }, orderBy: CATEGORY_ORDER });
}

/** Each parent's subcategories by position. */
export async function subcategories(db: Tx, parentIds: readonly bigint[]): Promise<Map<bigint, Prisma.CategoryModel[]>> {
  const rows = await db.category.findMany({ where: { parentId: { in: [...parentIds] } }, orderBy: CATEGORY_ORDER });
  const byParent = new Map<bigint, Prisma.CategoryModel[]>();
  for (const row of rows) if (row.parentId !== null) byParent.set(row.parentId, [...(byParent.get(row.parentId) ?? []), row]);
  return byParent;
}

/** Every brand by name. */
export async function listBrands(db: Tx) {
  return db.brand.findMany({ orderBy: [{ name: 'asc' }, { id: 'asc' }] });
}

/** Every channel by id. */
export async function listChannels(db: Tx) {
  return db.channel.findMany({ orderBy: { id: 'asc' } });
}
