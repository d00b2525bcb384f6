import type { IResolvers } from 'mercurius';
import type { Prisma } from '@shop/platform';
import { captureLead, DomainError, setStockOnHand } from '@shop/domain';
import { parseId } from '../ids.ts';
import { validSetting } from '../settings.ts';
import { leadView, stockLevelView, stockLocationView } from '../views.ts';
import { asStaff, inTransaction, notFound, type Context } from './common.ts';

const LOCATION_NAME_MAX_LENGTH = 200;

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
