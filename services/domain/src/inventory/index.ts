export { countStock, createStockLocation, listStockLocations, type StockCount } from './stock-locations.ts';
export {
  commitReservations,
  expireReservationsOf,
  releaseReservations,
  reserveStock,
  returnCommittedStock,
  setStockOnHand,
} from './stock.ts';
