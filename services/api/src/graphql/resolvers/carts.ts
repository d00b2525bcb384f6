import type { IResolvers } from 'mercurius';
import { addCartLine, createCart, placeOrder, setCartLineQuantity, viewCart, type Address } from '@shop/domain';
import { parseId } from '../ids.ts';
import { cartView, orderView } from '../views.ts';
import { inTransaction, type Context } from './common.ts';

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
      return cartView(await inTransaction(context, (tx) => viewCart(tx, context.shop.services.deps, cartId, context.shop.shopper)));
    },
  },
  Mutation: {
    async createCart(_root: unknown, _args: unknown, context: Context) {
      const channel = await context.shop.knownChannel();
      const input = { channelId: channel.id, currency: channel.defaultCurrency, shopper: context.shop.shopper };
      return cartView(await inTransaction(context, (tx) => createCart(tx, context.shop.services.deps, input)));
    },
    async addCartLine(_root: unknown, args: LineArgs, context: Context) {
      const cartId = parseId(args.cartId, 'cartId');
      const productId = parseId(args.productId, 'productId');
      const input = { cartId, productId, quantity: args.quantity, shopper: context.shop.shopper };
      return cartView(await inTransaction(context, (tx) => addCartLine(tx, context.shop.services.deps, input)));
    },
    async setCartLineQuantity(_root: unknown, args: LineArgs, context: Context) {
      const cartId = parseId(args.cartId, 'cartId');
      const productId = parseId(args.productId, 'productId');
      const input = { cartId, productId, quantity: args.quantity, shopper: context.shop.shopper };
      return cartView(await inTransaction(context, (tx) => setCartLineQuantity(tx, context.shop.services.deps, input)));
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
