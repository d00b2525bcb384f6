import { addCartLine, createCart, setCartLineQuantity, viewCart } from '@shop/domain/carts';
import type { Resolvers } from '../graphql/generated/resolver-types.ts';
import { inTransaction } from '../graphql/context.ts';
import { parseId } from '../graphql/ids.ts';
import { cartView } from './views.ts';

export const cartResolvers: Resolvers = {
  Query: {
    async cart(_root, { id }, context) {
      const cartId = parseId(id, 'id');
      return cartView(await inTransaction(context, (tx) => viewCart(tx, context.shop.services.deps, cartId, context.shop.shopper)));
    },
  },
  Mutation: {
    async createCart(_root, _args, context) {
      const channel = await context.shop.knownChannel();
      const input = { channelId: channel.id, currency: channel.defaultCurrency, shopper: context.shop.shopper };
      return cartView(await inTransaction(context, (tx) => createCart(tx, context.shop.services.deps, input)));
    },
    async addCartLine(_root, args, context) {
      const input = {
        cartId: parseId(args.cartId, 'cartId'),
        productId: parseId(args.productId, 'productId'),
        quantity: args.quantity,
        shopper: context.shop.shopper,
      };
      return cartView(await inTransaction(context, (tx) => addCartLine(tx, context.shop.services.deps, input)));
    },
    async setCartLineQuantity(_root, args, context) {
      const input = {
        cartId: parseId(args.cartId, 'cartId'),
        productId: parseId(args.productId, 'productId'),
        quantity: args.quantity,
        shopper: context.shop.shopper,
      };
      return cartView(await inTransaction(context, (tx) => setCartLineQuantity(tx, context.shop.services.deps, input)));
    },
  },
};
