import type { Prisma } from '@shop/platform';
import { countStock, createStockLocation, listStockLocations, type StockCount } from '@shop/domain/inventory';
import type { Resolvers, SetStockOnHandInput } from '../graphql/generated/resolver-types.ts';
import { parseId } from '../graphql/ids.ts';
import { inputMapper, same } from '../graphql/inputs.ts';
import { staffField } from '../graphql/staff-fields.ts';

const stockLocationView = (location: Prisma.StockLocationModel) => ({ id: location.id.toString(), name: location.name });

const stockLevelView = (level: Prisma.StockLevelModel) => ({
  productId: level.productId.toString(),
  locationId: level.locationId.toString(),
  onHand: level.onHand,
  reserved: level.reserved,
  available: level.onHand - level.reserved,
});

const stockCount = inputMapper<SetStockOnHandInput, StockCount>({
  productId: parseId,
  locationId: parseId,
  onHand: same,
  reason: (reason) => reason ?? 'adjustment',
});

export const inventoryResolvers: Resolvers = {
  Query: {
    stockLocations: staffField(async (_args, { tx }) => (await listStockLocations(tx)).map(stockLocationView)),
  },
  Mutation: {
    createStockLocation: staffField(async ({ name }, { tx }) => stockLocationView(await createStockLocation(tx, name))),
    setStockOnHand: staffField(async ({ input }, { tx }, context) => {
      return stockLevelView(await countStock(tx, context.shop.services.deps, stockCount(input)));
    }),
  },
};
