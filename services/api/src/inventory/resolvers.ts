import type { Prisma } from '@shop/platform';
import { countStock, createStockLocation, listStockLocations } from '@shop/domain/inventory';
import type { Resolvers } from '../graphql/generated/resolver-types.ts';
import { parseId } from '../graphql/ids.ts';
import { staffField } from '../graphql/staff-fields.ts';

const stockLocationView = (location: Prisma.StockLocationModel) => ({ id: location.id.toString(), name: location.name });

const stockLevelView = (level: Prisma.StockLevelModel) => ({
  productId: level.productId.toString(),
  locationId: level.locationId.toString(),
  onHand: level.onHand,
  reserved: level.reserved,
  available: level.onHand - level.reserved,
});

export const inventoryResolvers: Resolvers = {
  Query: {
    stockLocations: staffField(async (_args, { tx }) => (await listStockLocations(tx)).map(stockLocationView)),
  },
  Mutation: {
    createStockLocation: staffField(async ({ name }, { tx }) => stockLocationView(await createStockLocation(tx, name))),
    setStockOnHand: staffField(async ({ input }, { tx }, context) => {
      const count = { productId: parseId(input.productId, 'productId'), locationId: parseId(input.locationId, 'locationId'), onHand: input.onHand, reason: input.reason ?? 'adjustment' };
      return stockLevelView(await countStock(tx, context.shop.services.deps, count));
    }),
  },
};
