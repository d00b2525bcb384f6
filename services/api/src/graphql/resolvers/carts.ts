import type { IResolvers } from 'mercurius';
import { Prisma } from '@shop/platform';
import { addCartLine, checkoutSettings, createCart, placeOrder, setCartLineQuantity, viewCart, type Address, type Tx } from '@shop/domain';
import { parseId } from '../ids.ts';
import { cartView, orderView } from '../views.ts';
import { inTransaction, type Context } from './common.ts';

/** The cart with what checkout would charge now: the same formula as placeOrder. */
async function cartWithTotals(tx: Tx, context: Context, cartId: bigint) {
  const cart = await viewCart(tx, context.shop.services.deps, cartId, context.shop.shopper);
  const settings = await checkoutSettings(tx);
  const subtotal = new Prisma.Decimal(cart.subtotal);
  const shipping = settings.shippingFlatRate;
  const tax = subtotal.add(shipping).mul(settings.taxRate).toDecimalPlaces(2);
  const total = subtotal.add(shipping).add(tax);
  return cartView(cart, { subtotal: subtotal.toFixed(2), shipping: shipping.toFixed(2), tax: tax.toFixed(2), total: total.toFixed(2) });
}

interface LineArgs {
  readonly cartId: string;
  readonly productId: string;
  readonly quantity: number;
}

interface PlaceOrderArgs {
  readonly input: { cartId: string; email: string; billingAddress: Address; shippingAddress?: Address | null };
}

export const cartResolvers: IResolvers = {
  Query: {
    async cart(_root: unknown, { id }: { id: string }, context: Context) {
      const cartId = parseId(id, 'id');
      return inTransaction(context, (tx) => cartWithTotals(tx, context, cartId));
    },
  },
  Mutation: {
    async createCart(_root: unknown, _args: unknown, context: Context) {
      const channelId = await context.shop.channelId();
      return inTransaction(context, async (tx) => {
        const cart = await createCart(tx, context.shop.services.deps, { channelId, shopper: context.shop.shopper });
        return cartWithTotals(tx, context, cart.id);
      });
    },
    async addCartLine(_root: unknown, args: LineArgs, context: Context) {
      const cartId = parseId(args.cartId, 'cartId');
      const productId = parseId(args.productId, 'productId');
      return inTransaction(context, async (tx) => {
        await addCartLine(tx, context.shop.services.deps, { cartId, productId, quantity: args.quantity, shopper: context.shop.shopper });
        return cartWithTotals(tx, context, cartId);
      });
    },
    async setCartLineQuantity(_root: unknown, args: LineArgs, context: Context) {
      const cartId = parseId(args.cartId, 'cartId');
      const productId = parseId(args.productId, 'productId');
      return inTransaction(context, async (tx) => {
        await setCartLineQuantity(tx, context.shop.services.deps, { cartId, productId, quantity: args.quantity, shopper: context.shop.shopper });
        return cartWithTotals(tx, context, cartId);
      });
    },
    async placeOrder(_root: unknown, { input }: PlaceOrderArgs, context: Context) {
      const cartId = parseId(input.cartId, 'cartId');
      const order = await inTransaction(context, (tx) =>
        placeOrder(tx, context.shop.services.deps, {
          cartId,
          shopper: context.shop.shopper,
          email: input.email,
          billingAddress: input.billingAddress,
          shippingAddress: input.shippingAddress ?? input.billingAddress,
        }),
      );
      return orderView(order);
    },
  },
};
