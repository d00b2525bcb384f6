import type { IResolvers } from 'mercurius';
import type { Prisma } from '@shop/platform';
import {
  captureLead,
  createBrand,
  createCategory,
  createChannel,
  createProduct,
  DomainError,
  setStockOnHand,
  type Tx,
} from '@shop/domain';
import { parseId, parseIds, parseOptionalId } from '../ids.ts';
import { validSetting } from '../settings.ts';
import { brandView, categoryView, channelView, leadView, productView, stockLevelView, stockLocationView } from '../views.ts';
import { asStaff, inTransaction, notFound, type Context } from './common.ts';

const DESCRIPTION_MAX_LENGTH = 10_000;
const LOCATION_NAME_MAX_LENGTH = 200;

interface ProductArgs {
  readonly input: {
    sku: string;
    name: string;
    slug: string;
    description?: string | null;
    brandId?: string | null;
    price: string;
    currency: string;
    active?: boolean | null;
    categoryIds?: string[] | null;
    channelIds?: string[] | null;
  };
}

/** NOT_FOUND naming the first id (as `field[index]`) that has no row. */
async function assertAllExist(ids: readonly bigint[], field: string, what: string, count: (ids: bigint[]) => Promise<{ id: bigint }[]>): Promise<void> {
  const distinct = new Set(ids);
  if (distinct.size !== ids.length) throw new DomainError('BAD_USER_INPUT', `${field} lists an id twice`, { field });
  const found = new Set((await count([...distinct])).map((row) => row.id));
  const index = ids.findIndex((id) => !found.has(id));
  if (index >= 0) throw notFound(what, ids[index] as bigint, `${field}[${index}]`);
}

async function productRefsExist(tx: Tx, brandId: bigint | undefined, categoryIds: bigint[], channelIds: bigint[]): Promise<void> {
  if (brandId !== undefined && (await tx.brand.count({ where: { id: brandId } })) === 0) throw notFound('brand', brandId, 'brandId');
  await assertAllExist(categoryIds, 'categoryIds', 'category', (ids) => tx.category.findMany({ where: { id: { in: ids } }, select: { id: true } }));
  await assertAllExist(channelIds, 'channelIds', 'channel', (ids) => tx.channel.findMany({ where: { id: { in: ids } }, select: { id: true } }));
}

export const adminResolvers: IResolvers = {
  Query: {
    async stockLocations(_root: unknown, _args: unknown, context: Context) {
      const locations = await asStaff(context, 'inventory.read', (tx) => tx.stockLocation.findMany({ orderBy: { id: 'asc' } }));
      return locations.map(stockLocationView);
    },
    async setting(_root: unknown, { key }: { key: string }, context: Context) {
      const row = await asStaff(context, 'settings.manage', (tx) => tx.setting.findUnique({ where: { key } }));
      return row?.value ?? null;
    },
  },
  Mutation: {
    async captureLead(_root: unknown, { input }: { input: { email: string; name?: string | null; source: string } }, context: Context) {
      const channelId = await context.shop.channelId();
      return leadView(await inTransaction(context, (tx) => captureLead(tx, context.shop.services.deps, { ...input, channelId })));
    },
    async createChannel(_root: unknown, { input }: { input: { code: string; name: string; defaultCurrency: string } }, context: Context) {
      return channelView(await asStaff(context, 'catalog.write', (tx) => createChannel(tx, input)));
    },
    async createBrand(_root: unknown, { input }: { input: { name: string; slug: string } }, context: Context) {
      return brandView(await asStaff(context, 'catalog.write', (tx) => createBrand(tx, input)));
    },
    async createCategory(
      _root: unknown,
      { input }: { input: { name: string; slug: string; parentId?: string | null; position?: number | null } },
      context: Context,
    ) {
      const parentId = parseOptionalId(input.parentId, 'parentId');
      const category = await asStaff(context, 'catalog.write', (tx) =>
        createCategory(tx, { name: input.name, slug: input.slug, ...(parentId === undefined ? {} : { parentId }), position: input.position ?? 0 }),
      );
      return categoryView(category);
    },
    async createProduct(_root: unknown, { input }: ProductArgs, context: Context) {
      const brandId = parseOptionalId(input.brandId, 'brandId');
      const categoryIds = parseIds(input.categoryIds, 'categoryIds');
      const channelIds = parseIds(input.channelIds, 'channelIds');
      const description = input.description ?? '';
      if (description.length > DESCRIPTION_MAX_LENGTH) {
        throw new DomainError('BAD_USER_INPUT', `description must be at most ${DESCRIPTION_MAX_LENGTH} characters`, { field: 'description' });
      }
      const product = await asStaff(context, 'catalog.write', async (tx) => {
        await productRefsExist(tx, brandId, categoryIds, channelIds);
        return createProduct(tx, {
          sku: input.sku,
          name: input.name,
          slug: input.slug,
          description,
          price: input.price,
          currency: input.currency,
          active: input.active ?? true,
          categoryIds,
          channelIds,
          ...(brandId === undefined ? {} : { brandId }),
        });
      });
      return productView(product);
    },
    async createStockLocation(_root: unknown, { name }: { name: string }, context: Context) {
      const trimmed = name.trim();
      if (trimmed.length === 0 || trimmed.length > LOCATION_NAME_MAX_LENGTH) {
        throw new DomainError('BAD_USER_INPUT', `name must be 1 to ${LOCATION_NAME_MAX_LENGTH} characters`, { field: 'name' });
      }
      return stockLocationView(await asStaff(context, 'inventory.write', (tx) => tx.stockLocation.create({ data: { name: trimmed } })));
    },
    async setStockOnHand(
      _root: unknown,
      { input }: { input: { productId: string; locationId: string; onHand: number; reason?: 'adjustment' | 'restock' | null } },
      context: Context,
    ) {
      const productId = parseId(input.productId, 'productId');
      const locationId = parseId(input.locationId, 'locationId');
      const level = await asStaff(context, 'inventory.write', async (tx) => {
        if ((await tx.product.count({ where: { id: productId } })) === 0) throw notFound('product', productId, 'productId');
        if ((await tx.stockLocation.count({ where: { id: locationId } })) === 0) throw notFound('stock location', locationId, 'locationId');
        await setStockOnHand(tx, context.shop.services.deps, { productId, locationId, onHand: input.onHand, reason: input.reason ?? 'adjustment' });
        return tx.stockLevel.findUniqueOrThrow({ where: { productId_locationId: { productId, locationId } } });
      });
      return stockLevelView(level);
    },
    async setSetting(_root: unknown, args: { key: string; value: unknown }, context: Context) {
      const { key, value } = validSetting(args.key, args.value);
      const json = value as Prisma.InputJsonValue;
      const row = await asStaff(context, 'settings.manage', (tx) => tx.setting.upsert({ where: { key }, create: { key, value: json }, update: { value: json } }));
      return row.value;
    },
  },
};
