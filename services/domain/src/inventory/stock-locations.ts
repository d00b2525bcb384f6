import { type DomainDeps, LIMITS, notFound, requireText, type Tx } from '../kernel/index.ts';
import { setStockOnHand } from './stock.ts';

export async function listStockLocations(tx: Tx) {
  return tx.stockLocation.findMany({ orderBy: { id: 'asc' } });
}

export async function createStockLocation(tx: Tx, name: string) {
  return tx.stockLocation.create({ data: { name: requireText('name', name, LIMITS.stockLocationName) } });
}

export interface StockCount {
  readonly productId: bigint;
  readonly locationId: bigint;
  readonly onHand: number;
  readonly reason: 'adjustment' | 'restock';
}

/** A count or a delivery at a location: NOT_FOUND naming productId or locationId; returns the level it leaves. */
export async function countStock(tx: Tx, deps: DomainDeps, count: StockCount) {
  const { productId, locationId } = count;
  if ((await tx.product.count({ where: { id: productId } })) === 0) throw notFound('product', productId, 'productId');
  if ((await tx.stockLocation.count({ where: { id: locationId } })) === 0) throw notFound('stock location', locationId, 'locationId');
  await setStockOnHand(tx, deps, count);
  return tx.stockLevel.findUniqueOrThrow({ where: { productId_locationId: { productId, locationId } } });
}
