import { type DomainDeps, DomainError, notFound, type Tx } from '../kernel/index.ts';
import { setStockOnHand } from './stock.ts';

const LOCATION_NAME_MAX_LENGTH = 200;

export async function listStockLocations(tx: Tx) {
  return tx.stockLocation.findMany({ orderBy: { id: 'asc' } });
}

export async function createStockLocation(tx: Tx, name: string) {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > LOCATION_NAME_MAX_LENGTH) {
    throw new DomainError('BAD_USER_INPUT', `name must be 1 to ${LOCATION_NAME_MAX_LENGTH} characters`, { field: 'name' });
  }
  return tx.stockLocation.create({ data: { name: trimmed } });
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
