import {
  type DomainDeps,
  DomainError,
  idString,
  money,
  type Money,
  moneyString,
  optionalId,
  roundMoney,
  type Shopper,
  sum,
  type Tx,
} from '../kernel/index.ts';
import { sellableProducts } from '../catalog/index.ts';
import { checkoutSettings, type CheckoutSettings } from '../settings/index.ts';

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

/**
 * A new, empty cart for the shopper in the channel, in the channel's default currency (read unless
 * the caller already knows it), living `cartLifetimeDays`. Returns the cart as viewCart shows it.
 */
export async function createCart(
  tx: Tx,
  deps: DomainDeps,
  input: { channelId: bigint; shopper: Shopper; currency?: string },
): Promise<CartView> {
  requireShopper(input.shopper);
  let currency = input.currency;
  if (currency === undefined) {
    const channel = await tx.channel.findUnique({ where: { id: input.channelId }, select: { defaultCurrency: true } });
    if (channel === null) throw new DomainError('NOT_FOUND', `channel ${input.channelId} does not exist`, { field: 'channelId' });
    currency = channel.defaultCurrency;
  }
  const settings = await checkoutSettings(tx);
  const cart = await tx.cart.create({
    data: {
      channelId: input.channelId,
      customerId: input.shopper.customerId ?? null,
      sessionId: input.shopper.sessionId ?? null,
      currency,
      expiresAt: new Date(deps.now().getTime() + settings.cartLifetimeDays * DAY_MS),
    },
    select: { id: true },
  });
  return viewOf({ id: cart.id, currency }, [], settings);
}

/** A cart as its checks and views need it, read and locked in one statement. */
export interface ActiveCart {
  readonly id: bigint;
  readonly channelId: bigint;
  readonly customerId: bigint | null;
  readonly sessionId: string | null;
  readonly currency: string;
  readonly expiresAt: Date;
}

/**
 * The shopper's active cart, locked for the rest of the transaction. Someone else's cart is NOT_FOUND,
 * not FORBIDDEN: cart ids must not be probeable.
 */
export async function activeCartOf(tx: Tx, deps: DomainDeps, cartId: bigint, shopper: Shopper): Promise<ActiveCart> {
  const [cart] = await tx.$queryRaw<(ActiveCart & { status: string })[]>`
    SELECT id, channel_id AS "channelId", customer_id AS "customerId", session_id AS "sessionId", currency, status::text AS status,
           expires_at AS "expiresAt"
      FROM carts WHERE id = ${cartId} FOR UPDATE`;
  const owned =
    cart !== undefined &&
    ((cart.customerId !== null && cart.customerId === shopper.customerId) ||
      (cart.sessionId !== null && cart.sessionId === shopper.sessionId));
  if (!owned) throw new DomainError('NOT_FOUND', `cart ${cartId} does not exist`, { field: 'cartId' });
  if (cart.status !== 'ACTIVE') throw new DomainError('BAD_USER_INPUT', `cart ${cartId} was already checked out`, { field: 'cartId' });
  if (cart.expiresAt <= deps.now())
    throw new DomainError('BAD_USER_INPUT', `cart ${cartId} has expired; start a new one`, { field: 'cartId' });
  return cart;
}

/**
 * Adds units of a product (or more units to its line). Emits the in-process cart.item_added (for
 * attribution) and the topic shop.cart.line_added.v1, and extends the cart's life.
 */
export async function addCartLine(
  tx: Tx,
  deps: DomainDeps,
  input: { cartId: bigint; shopper: Shopper; productId: bigint; quantity: number },
): Promise<CartView> {
  const quantity = requireQuantity(input.quantity);
  const cart = await activeCartOf(tx, deps, input.cartId, input.shopper);
  const product = (await sellableProducts(tx, cart.channelId, [input.productId])).get(input.productId);
  if (product === undefined) throw new Error('unreachable: sellableProducts returns every id or throws');
  if (product.currency !== cart.currency) {
    throw new DomainError('BAD_USER_INPUT', `product ${product.sku} is priced in ${product.currency}, the cart in ${cart.currency}`, {
      field: 'productId',
    });
  }
  const settings = await checkoutSettings(tx);
  // One statement: the line added or grown (only while it stays within the maximum; the cart's lock
  // keeps the sum exact) and the cart's life extended.
  const [line] = await tx.$queryRaw<{ id: bigint }[]>`
    WITH touched AS (
      UPDATE carts SET expires_at = ${expiryFrom(deps, settings)}, updated_at = now() WHERE id = ${cart.id})
    INSERT INTO cart_lines AS l (cart_id, product_id, quantity, unit_price, updated_at)
    VALUES (${cart.id}, ${product.id}, ${quantity}, ${product.price}::numeric, now())
    ON CONFLICT (cart_id, product_id) DO UPDATE
       SET quantity = l.quantity + excluded.quantity, unit_price = excluded.unit_price, updated_at = now()
     WHERE l.quantity + excluded.quantity <= ${MAX_LINE_QUANTITY}
    RETURNING l.id`;
  if (line === undefined)
    throw new DomainError('BAD_USER_INPUT', `a line may hold at most ${MAX_LINE_QUANTITY} units`, { field: 'quantity' });

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
    unit_price: moneyString(product.price, cart.currency),
    currency: cart.currency,
    occurred_at: now,
  });
  return contentsOf(tx, cart, settings);
}

/** Sets a line's quantity; 0 removes the line. Returns the cart as viewCart shows it. */
export async function setCartLineQuantity(
  tx: Tx,
  deps: DomainDeps,
  input: { cartId: bigint; shopper: Shopper; productId: bigint; quantity: number },
): Promise<CartView> {
  const cart = await activeCartOf(tx, deps, input.cartId, input.shopper);
  const where = { cartId_productId: { cartId: cart.id, productId: input.productId } };
  if ((await tx.cartLine.findUnique({ where, select: { id: true } })) === null) {
    throw new DomainError('NOT_FOUND', `cart ${cart.id} has no line for product ${input.productId}`, { field: 'productId' });
  }
  if (input.quantity === 0) await tx.cartLine.delete({ where });
  else await tx.cartLine.update({ where, data: { quantity: requireQuantity(input.quantity) } });
  const settings = await checkoutSettings(tx);
  await tx.cart.update({ where: { id: cart.id }, data: { expiresAt: expiryFrom(deps, settings) } });
  return contentsOf(tx, cart, settings);
}

const expiryFrom = (deps: DomainDeps, settings: CheckoutSettings): Date =>
  new Date(deps.now().getTime() + settings.cartLifetimeDays * DAY_MS);

/**
 * What checkout would charge for a subtotal in a currency under the settings: placeOrder and every
 * cart view use it. Shipping and tax are rounded at the currency's exponent (the flat rate is one
 * setting for every currency: 4.90 is 5 JPY).
 */
export function checkoutTotals(
  subtotal: Money,
  currency: string,
  settings: CheckoutSettings,
): { shipping: Money; tax: Money; total: Money } {
  const shipping = roundMoney(settings.shippingFlatRate, currency);
  const tax = roundMoney(subtotal.add(shipping).mul(settings.taxRate), currency);
  return { shipping, tax, total: subtotal.add(shipping).add(tax) };
}

export interface CartView {
  readonly id: bigint;
  readonly currency: string;
  readonly lines: readonly { productId: bigint; quantity: number; unitPrice: string; lineTotal: string }[];
  readonly subtotal: string;
  readonly shipping: string;
  readonly tax: string;
  readonly total: string;
}

function viewOf(
  cart: { id: bigint; currency: string },
  lines: readonly { productId: bigint; quantity: number; unitPrice: Money }[],
  settings: CheckoutSettings,
): CartView {
  const lineTotals = lines.map((line) => line.unitPrice.mul(line.quantity));
  const subtotal = sum(lineTotals);
  const { shipping, tax, total } = checkoutTotals(subtotal, cart.currency, settings);
  const amount = (value: Money): string => moneyString(value, cart.currency);
  return {
    id: cart.id,
    currency: cart.currency,
    lines: lines.map((line, i) => ({
      productId: line.productId,
      quantity: line.quantity,
      unitPrice: amount(line.unitPrice),
      lineTotal: amount(lineTotals[i] ?? money(0)),
    })),
    subtotal: amount(subtotal),
    shipping: amount(shipping),
    tax: amount(tax),
    total: amount(total),
  };
}

/** Each line at its product's price today, as checkout will charge it (the price stored on the line is when it was added). */
async function contentsOf(tx: Tx, cart: ActiveCart, settings: CheckoutSettings): Promise<CartView> {
  const lines = await tx.$queryRaw<{ productId: bigint; quantity: number; price: string }[]>`
    SELECT l.product_id AS "productId", l.quantity, p.price::text AS price
      FROM cart_lines l JOIN products p ON p.id = l.product_id
     WHERE l.cart_id = ${cart.id}
     ORDER BY l.id`;
  return viewOf(
    cart,
    lines.map((line) => ({ productId: line.productId, quantity: line.quantity, unitPrice: money(line.price) })),
    settings,
  );
}

/** The shopper's active cart with its lines and what checkout would charge for it now. */
export async function viewCart(tx: Tx, deps: DomainDeps, cartId: bigint, shopper: Shopper): Promise<CartView> {
  const cart = await activeCartOf(tx, deps, cartId, shopper);
  return contentsOf(tx, cart, await checkoutSettings(tx));
}
