export { countStock, createStockLocation, listStockLocations } from './stock-locations.ts';
export { commitReservations, expireReservationsOf, releaseReservations, reserveStock, returnCommittedStock, setStockOnHand } from './stock.ts';
