import { DomainError } from '../errors/domain-error.ts';
import { idString, optionalId, type DomainDeps, type Shopper, type Tx } from '../context.ts';
import { sellableProducts } from '../catalog/sellable-products.ts';
import { checkoutSettings } from '../settings/checkout-settings.ts';
import { money, moneyString, sum } from '../money.ts';

export const MAX_LINE_QUANTITY = 999;
const DAY_MS = 24 * 60 * 60 * 1000;

function requireShopper(shopper: Shopper): void {
  if (shopper.customerId === undefined && !shopper.sessionId) {
    throw new DomainError('BAD_USER_INPUT', 'a cart needs a signed-in customer or a session id (X-Session-ID)', { field: 'sessionId' });
  }
}

function requireQuantity(quantity: number): number {
  if (!Number.isInteger(quantity) || quantity < 1 || quantity > MAX_LINE_QUANTITY) {
    throw new DomainError('BAD_USER_INPUT', `quantity must be a whole number from 1 to ${MAX_LINE_QUANTITY}`, { field: 'quantity' });
  }
  return quantity;
}

export async function createCart(tx: Tx, deps: DomainDeps, input: { channelId: bigint; shopper: Shopper }) {
  requireShopper(input.shopper);
  const channel = await tx.channel.findUnique({ where: { id: input.channelId } });
  if (channel === null) throw new DomainError('NOT_FOUND', `channel ${input.channelId} does not exist`, { field: 'channelId' });
  const { cartLifetimeDays } = await checkoutSettings(tx);
  return tx.cart.create({
    data: {
      channelId: channel.id,
      customerId: input.shopper.customerId ?? null,
      sessionId: input.shopper.sessionId ?? null,
      currency: channel.defaultCurrency,
      expiresAt: new Date(deps.now().getTime() + cartLifetimeDays * DAY_MS),
    },
  });
}

/**
 * The shopper's active cart, locked for the rest of the transaction. Someone else's cart is NOT_FOUND,
 * not FORBIDDEN: cart ids must not be probeable.
 */
export async function activeCartOf(tx: Tx, deps: DomainDeps, cartId: bigint, shopper: Shopper) {
  await tx.$executeRaw`SELECT 1 FROM carts WHERE id = ${cartId} FOR UPDATE`;
  const cart = await tx.cart.findUnique({ where: { id: cartId } });
  const owned =
    cart !== null &&
    ((cart.customerId !== null && cart.customerId === shopper.customerId) || (cart.sessionId !== null && cart.sessionId === shopper.sessionId));
  if (!owned) throw new DomainError('NOT_FOUND', `cart ${cartId} does not exist`, { field: 'cartId' });
  if (cart.status !== 'ACTIVE') throw new DomainError('BAD_USER_INPUT', `cart ${cartId} was already checked out`, { field: 'cartId' });
  if (cart.expiresAt <= deps.now()) throw new DomainError('BAD_USER_INPUT', `cart ${cartId} has expired; start a new one`, { field: 'cartId' });
  return cart;
}

/**
 * Adds units of a product (or more units to its line). Emits the in-process cart.item_added (for
 * attribution) and the topic shop.cart.line_added.v1, and extends the cart's life.
 */
export async function addCartLine(tx: Tx, deps: DomainDeps, input: { cartId: bigint; shopper: Shopper; productId: bigint; quantity: number }) {
  const quantity = requireQuantity(input.quantity);
  const cart = await activeCartOf(tx, deps, input.cartId, input.shopper);
  const product = (await sellableProducts(tx, cart.channelId, [input.productId])).get(input.productId);
  if (product === undefined) throw new Error('unreachable: sellableProducts returns every id or throws');
  if (product.currency !== cart.currency) {
    throw new DomainError('BAD_USER_INPUT', `product ${product.sku} is priced in ${product.currency}, the cart in ${cart.currency}`, { field: 'productId' });
  }
  const existing = await tx.cartLine.findUnique({ where: { cartId_productId: { cartId: cart.id, productId: product.id } } });
  if ((existing?.quantity ?? 0) + quantity > MAX_LINE_QUANTITY) {
    throw new DomainError('BAD_USER_INPUT', `a line may hold at most ${MAX_LINE_QUANTITY} units`, { field: 'quantity' });
  }
  const line = await tx.cartLine.upsert({
    where: { cartId_productId: { cartId: cart.id, productId: product.id } },
    create: { cartId: cart.id, productId: product.id, quantity, unitPrice: product.price },
    update: { quantity: { increment: quantity }, unitPrice: product.price },
  });
  await touchCart(tx, deps, cart.id);

  const now = deps.now().toISOString();
  const shopper = { customer_id: optionalId(cart.customerId), session_id: cart.sessionId };
  await deps.emit(tx, 'cart.item_added', {
    cart_id: idString(cart.id),
    cart_line_id: idString(line.id),
    ...shopper,
    product_id: idString(product.id),
    category_ids: product.categoryIds.map(idString),
    brand_id: optionalId(product.brandId),
    quantity,
    added_at: now,
    occurred_at: now,
  });
  await deps.emit(tx, 'shop.cart.line_added.v1', {
    cart_id: idString(cart.id),
    cart_line_id: idString(line.id),
    channel_id: idString(cart.channelId),
    ...shopper,
    product_id: idString(product.id),
    sku: product.sku,
    quantity,
    unit_price: moneyString(product.price),
    currency: cart.currency,
    occurred_at: now,
  });
  return line;
}

/** Sets a line's quantity; 0 removes the line. */
export async function setCartLineQuantity(tx: Tx, deps: DomainDeps, input: { cartId: bigint; shopper: Shopper; productId: bigint; quantity: number }) {
  const cart = await activeCartOf(tx, deps, input.cartId, input.shopper);
  const where = { cartId_productId: { cartId: cart.id, productId: input.productId } };
  if ((await tx.cartLine.findUnique({ where })) === null) {
    throw new DomainError('NOT_FOUND', `cart ${cart.id} has no line for product ${input.productId}`, { field: 'productId' });
  }
  if (input.quantity === 0) await tx.cartLine.delete({ where });
  else await tx.cartLine.update({ where, data: { quantity: requireQuantity(input.quantity) } });
  await touchCart(tx, deps, cart.id);
}

async function touchCart(tx: Tx, deps: DomainDeps, cartId: bigint): Promise<void> {
  const { cartLifetimeDays } = await checkoutSettings(tx);
  await tx.cart.update({ where: { id: cartId }, data: { expiresAt: new Date(deps.now().getTime() + cartLifetimeDays * DAY_MS) } });
}

export interface CartView {
  readonly id: bigint;
  readonly currency: string;
  readonly lines: readonly { productId: bigint; quantity: number; unitPrice: string; lineTotal: string }[];
  readonly subtotal: string;
}

export async function viewCart(tx: Tx, deps: DomainDeps, cartId: bigint, shopper: Shopper): Promise<CartView> {
  const cart = await activeCartOf(tx, deps, cartId, shopper);
  const lines = await tx.cartLine.findMany({ where: { cartId: cart.id }, orderBy: { id: 'asc' } });
  const totals = lines.map((line) => line.unitPrice.mul(line.quantity));
  return {
    id: cart.id,
    currency: cart.currency,
    lines: lines.map((line, i) => ({ productId: line.productId, quantity: line.quantity, unitPrice: moneyString(line.unitPrice), lineTotal: moneyString(totals[i] ?? money(0)) })),
    subtotal: moneyString(sum(totals)),
  };
}
