import { DomainError } from '../errors/domain-error.ts';
import { idString, optionalId, type DomainDeps, type Shopper, type Tx } from '../context.ts';
import { activeCartOf, checkoutTotals } from '../carts/carts.ts';
import { sellableProducts } from '../catalog/sellable-products.ts';
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
  const cartLines = await tx.cartLine.findMany({ where: { cartId: cart.id }, orderBy: { id: 'asc' }, select: { productId: true, quantity: true } });
  if (cartLines.length === 0) throw new DomainError('BAD_USER_INPUT', `cart ${cart.id} is empty`, { field: 'cartId' });
  const products = await sellableProducts(tx, cart.channelId, cartLines.map((line) => line.productId));
  const settings = await checkoutSettings(tx);
  const customer = cart.customerId === null ? null : await tx.customer.findUnique({ where: { id: cart.customerId } });

  const lines = cartLines.map((line) => {
    const product = products.get(line.productId);
    if (product === undefined) throw new Error('unreachable: sellableProducts returns every id or throws');
    return { product, quantity: line.quantity, lineTotal: product.price.mul(line.quantity) };
  });
  const subtotal = sum(lines.map((line) => line.lineTotal));
  const { shipping: shippingCost, tax, total } = checkoutTotals(subtotal, settings);
  const now = deps.now();
  const awaitsApproval = customer?.isBusiness === true && settings.businessOrdersNeedApproval;
  const status = awaitsApproval ? 'AWAITING_APPROVAL' : 'PENDING_PAYMENT';

  // The id first, so the human-facing number can be derived from it in the same insert.
  const [next] = await tx.$queryRaw<{ id: bigint }[]>`SELECT nextval(pg_get_serial_sequence('orders', 'id')) AS id`;
  if (next === undefined) throw new Error('nextval returned no row');
  const id = next.id;
  const order = await tx.order.create({
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
      lines: {
        create: lines.map(({ product, quantity, lineTotal }) => ({
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
      },
    },
    include: { lines: { orderBy: { id: 'asc' } } },
  });

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
