export {
  type ActiveCart,
  activeCartOf,
  addCartLine,
  type CartView,
  checkoutTotals,
  createCart,
  setCartLineQuantity,
  viewCart,
} from './carts.ts';
export { deleteExpiredCarts } from './expired-carts.ts';
