import { DomainError } from '../errors/domain-error.ts';
import { idString, optionalId, type DomainDeps, type Shopper, type Tx } from '../context.ts';
import { activeCartOf, checkoutTotals, type ActiveCart } from '../carts/carts.ts';
import type { SellableProduct } from '../catalog/sellable-products.ts';
import { reserveStock } from '../inventory/stock.ts';
import { checkoutSettings } from '../settings/checkout-settings.ts';
import { money, sum } from '../money.ts';
import { validAddress, type Address } from './address.ts';
import { orderPlaced, type OrderWithLines } from './order-events.ts';
import { trippedFraudRules } from './fraud-rules.ts';

export interface PlaceOrderInput {
  readonly cartId: bigint;
  readonly shopper: Shopper;
  readonly email: string;
  readonly billingAddress: Address;
  readonly shippingAddress: Address;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const HOUR_MS = 60 * 60 * 1000;

/**
 * The cart's lines with their products at today's prices, in one statement; NOT_FOUND naming the
 * first product that is no longer active or sold in the cart's channel (as sellableProducts does).
 */
async function cartLinesWithProducts(tx: Tx, cart: ActiveCart): Promise<{ product: SellableProduct; quantity: number }[]> {
  const rows = await tx.$queryRaw<
    { productId: bigint; quantity: number; sku: string; name: string; price: string; currency: string; brandId: bigint | null; categoryIds: string[]; sellable: boolean }[]
  >`
    SELECT l.product_id AS "productId", l.quantity, p.sku, p.name, p.price::text AS price, p.currency, p.brand_id AS "brandId",
           ARRAY(SELECT pc.category_id::text FROM product_categories pc WHERE pc.product_id = p.id ORDER BY pc.position, pc.category_id) AS "categoryIds",
           p.active AND EXISTS (SELECT 1 FROM product_channels ch WHERE ch.product_id = p.id AND ch.channel_id = ${cart.channelId}) AS sellable
      FROM cart_lines l JOIN products p ON p.id = l.product_id
     WHERE l.cart_id = ${cart.id}
     ORDER BY l.id`;
  const unsellable = rows.find((row) => !row.sellable);
  if (unsellable !== undefined) {
    throw new DomainError('NOT_FOUND', `product ${unsellable.productId} does not exist or is not sold in this channel`, { productId: unsellable.productId.toString() });
  }
  return rows.map(({ productId, quantity, sku, name, price, currency, brandId, categoryIds }) => ({
    product: { id: productId, sku, name, price: money(price), currency, brandId, categoryIds: categoryIds.map(BigInt) },
    quantity,
  }));
}

/**
 * Turns the shopper's cart into an order at today's prices and holds its stock. A business
 * customer's order waits in AWAITING_APPROVAL (when the setting says so), any other in
 * PENDING_PAYMENT. Emits shop.orders.placed.v1, and shop.fraud.check_requested.v1 when the order
 * trips a fraud rule. Any refusal rolls the whole transaction back: no order, no hold, no event.
 */
export async function placeOrder(tx: Tx, deps: DomainDeps, input: PlaceOrderInput): Promise<OrderWithLines> {
  const email = input.email.trim().toLowerCase();
  if (email.length > 320 || !EMAIL.test(email)) throw new DomainError('BAD_USER_INPUT', 'email must be an email address', { field: 'email' });
  const billing = validAddress('billingAddress', input.billingAddress);
  const shipping = validAddress('shippingAddress', input.shippingAddress);

  const cart = await activeCartOf(tx, deps, input.cartId, input.shopper);
  const cartLines = await cartLinesWithProducts(tx, cart);
  if (cartLines.length === 0) throw new DomainError('BAD_USER_INPUT', `cart ${cart.id} is empty`, { field: 'cartId' });
  const settings = await checkoutSettings(tx);
  const customer = cart.customerId === null ? null : await tx.customer.findUnique({ where: { id: cart.customerId } });

  const lines = cartLines.map(({ product, quantity }) => ({ product, quantity, lineTotal: product.price.mul(quantity) }));
  const subtotal = sum(lines.map((line) => line.lineTotal));
  const { shipping: shippingCost, tax, total } = checkoutTotals(subtotal, settings);
  const now = deps.now();
  const awaitsApproval = customer?.isBusiness === true && settings.businessOrdersNeedApproval;
  const status = awaitsApproval ? 'AWAITING_APPROVAL' : 'PENDING_PAYMENT';

  // The id first, so the human-facing number can be derived from it in the same insert.
  const [next] = await tx.$queryRaw<{ id: bigint }[]>`SELECT nextval(pg_get_serial_sequence('orders', 'id')) AS id`;
  if (next === undefined) throw new Error('nextval returned no row');
  const id = next.id;
  const placed = await tx.order.create({
    data: {
      id,
      number: `SO-${now.getUTCFullYear()}-${id.toString().padStart(6, '0')}`,
      channelId: cart.channelId,
      cartId: cart.id,
      customerId: cart.customerId,
      sessionId: cart.sessionId,
      email,
      status,
      currency: cart.currency,
      subtotal,
      tax,
      shipping: shippingCost,
      discount: money(0),
      total,
      billingAddress: { ...billing },
      shippingAddress: { ...shipping },
      placedAt: now,
    },
  });
  // The lines in one INSERT … RETURNING (a nested create would read the order and its lines back).
  const orderLines = await tx.orderLine.createManyAndReturn({
    data: lines.map(({ product, quantity, lineTotal }) => ({
      orderId: placed.id,
      productId: product.id,
      sku: product.sku,
      productName: product.name,
      categoryIds: [...product.categoryIds],
      categoryId: product.categoryIds[0] ?? null,
      brandId: product.brandId,
      unitPrice: product.price,
      quantity,
      lineTotal,
    })),
  });
  const order: OrderWithLines = { ...placed, lines: orderLines.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)) };

  await tx.cart.update({ where: { id: cart.id }, data: { status: 'CONVERTED' }, select: { id: true } });
  // The holds last: their stock rows stay locked until commit, and other orders for the same products wait on them.
  const holdFor = awaitsApproval ? settings.approvalWindowHours * HOUR_MS : settings.paymentWindowMinutes * 60 * 1000;
  await reserveStock(
    tx,
    deps,
    order.id,
    lines.map(({ product, quantity }) => ({ productId: product.id, sku: product.sku, quantity })),
    new Date(now.getTime() + holdFor),
  );
  await orderPlaced(tx, deps, order);

  const tripped = await trippedFraudRules(tx, settings.fraud, {
    total,
    currency: order.currency,
    customerId: order.customerId,
    billingCountry: billing.countryCode,
    shippingCountry: shipping.countryCode,
    now,
  });
  if (tripped.length > 0) {
    await deps.emit(tx, 'shop.fraud.check_requested.v1', {
      order_id: idString(order.id),
      order_number: order.number,
      customer_id: optionalId(order.customerId),
      channel_id: idString(order.channelId),
      total: order.total.toFixed(2),
      currency: order.currency,
      rules_tripped: tripped,
      occurred_at: now.toISOString(),
    });
  }
  return order;
}
