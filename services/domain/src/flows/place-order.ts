import type { Order, OrderLine } from '@shop/platform';
import {
  type DomainDeps,
  DomainError,
  idString,
  LIMITS,
  money,
  type Money,
  moneyString,
  optionalId,
  type Shopper,
  type Tx,
} from '../kernel/index.ts';
import { activeCartOf, type ActiveCart } from '../carts/index.ts';
import type { SellableProduct } from '../catalog/index.ts';
import { reserveStock } from '../inventory/index.ts';
import { checkoutSettings } from '../settings/index.ts';
import {
  type Address,
  markOrderPaid,
  orderPlaced,
  orderStatusChanged,
  type OrderWithLines,
  quoteCart,
  trippedFraudRules,
  validAddress,
} from '../orders/index.ts';
import { creditCoverAtCheckout, spendGiftCardAtCheckout, spendStoreCreditAtCheckout } from '../store-credit/index.ts';
import { hasCartTender, lockedCartTender, payWithCartTender, type CartCard } from '../tenders/index.ts';

/**
 * The order's transaction, checkout's last step (carts, catalog, inventory, orders, tenders, store
 * credit). Guarantees: the order, its stock reservations, its tenders and its events are written in
 * one transaction, and once per idempotency key when the request gives one.
 */

export interface PlaceOrderInput {
  readonly cartId: bigint;
  readonly shopper: Shopper;
  readonly email: string;
  readonly billingAddress: Address;
  /** Absent: the order ships to the billing address. */
  readonly shippingAddress?: Address;
  /** Chosen by the shopper's client for this order: a retry with the same key gets the order the first request placed. */
  readonly idempotencyKey?: string;
  /** The card to pay with, as the gateway's tokenizer gave it: its authorization of the total is the payment (needs `idempotencyKey`). */
  readonly card?: { readonly token: string };
  /** Pays with the signed-in customer's store credit first, the card for the rest (needs `idempotencyKey`). */
  readonly useStoreCredit?: boolean;
  /** Pays with this gift card first, before store credit and the card (needs `idempotencyKey`). */
  readonly giftCardCode?: string;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const HOUR_MS = 60 * 60 * 1000;

interface NewOrder {
  readonly cart: ActiveCart;
  readonly idempotencyKey: string | null;
  readonly email: string;
  readonly status: 'PENDING_PAYMENT' | 'AWAITING_APPROVAL';
  readonly subtotal: Money;
  readonly tax: Money;
  readonly shipping: Money;
  readonly total: Money;
  readonly billingAddress: Address;
  readonly shippingAddress: Address;
  readonly placedAt: Date;
}

/**
 * The order in one statement that also marks the cart CONVERTED: its id drawn in the same INSERT,
 * so the number (SO-<year>-<id, at least 6 digits>) is derived from it there.
 */
async function insertOrder(tx: Tx, input: NewOrder): Promise<Order> {
  const { cart } = input;
  const [row] = await tx.$queryRaw<{ id: bigint; number: string; createdAt: Date; updatedAt: Date }[]>`
    WITH converted AS (
      UPDATE carts SET status = 'CONVERTED', updated_at = now() WHERE id = ${cart.id}),
    next AS (SELECT nextval(pg_get_serial_sequence('orders', 'id')) AS id)
    INSERT INTO orders (id, number, channel_id, cart_id, customer_id, session_id, email, status, currency,
                        subtotal, tax, shipping, discount, total, billing_address, shipping_address, placed_at, idempotency_key, updated_at)
    SELECT next.id, 'SO-' || ${String(input.placedAt.getUTCFullYear())}::text || '-' || lpad(next.id::text, greatest(6, length(next.id::text)), '0'),
           ${cart.channelId}::bigint, ${cart.id}::bigint, ${cart.customerId}::bigint, ${cart.sessionId}::text, ${input.email}::text,
           ${input.status}::order_status, ${cart.currency}::text, ${moneyString(input.subtotal, cart.currency)}::numeric, ${moneyString(input.tax, cart.currency)}::numeric,
           ${moneyString(input.shipping, cart.currency)}::numeric, 0, ${moneyString(input.total, cart.currency)}::numeric,
           ${JSON.stringify(input.billingAddress)}::jsonb, ${JSON.stringify(input.shippingAddress)}::jsonb, ${input.placedAt}::timestamptz,
           ${input.idempotencyKey}::text, now()
      FROM next
    RETURNING id, number, created_at AS "createdAt", updated_at AS "updatedAt"`;
  if (row === undefined) throw new Error('the order INSERT returned no row');
  return {
    id: row.id,
    number: row.number,
    channelId: cart.channelId,
    cartId: cart.id,
    customerId: cart.customerId,
    sessionId: cart.sessionId,
    email: input.email,
    status: input.status,
    currency: cart.currency,
    subtotal: input.subtotal,
    tax: input.tax,
    shipping: input.shipping,
    discount: money(0),
    total: input.total,
    billingAddress: { ...input.billingAddress },
    shippingAddress: { ...input.shippingAddress },
    placedAt: input.placedAt,
    paidAt: null,
    fulfilledAt: null,
    completedAt: null,
    cancelledAt: null,
    cancelReason: null,
    idempotencyKey: input.idempotencyKey,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** The order's lines, a snapshot of each product, in one INSERT … RETURNING; in cart order (by id). */
async function insertOrderLines(
  tx: Tx,
  order: { id: bigint; currency: string },
  lines: readonly { product: SellableProduct; quantity: number; lineTotal: Money }[],
): Promise<OrderLine[]> {
  // Ids as strings: JSON numbers lose bigints above 2^53.
  const rows = lines.map(({ product, quantity, lineTotal }, position) => ({
    position,
    product_id: product.id.toString(),
    sku: product.sku,
    product_name: product.name,
    category_ids: product.categoryIds.map(String),
    brand_id: product.brandId?.toString() ?? null,
    unit_price: moneyString(product.price, order.currency),
    quantity,
    line_total: moneyString(lineTotal, order.currency),
  }));
  const inserted = await tx.$queryRaw<{ id: bigint; productId: bigint; createdAt: Date; updatedAt: Date }[]>`
    INSERT INTO order_lines (order_id, product_id, sku, product_name, category_ids, category_id, brand_id, unit_price, quantity, line_total, updated_at)
    SELECT ${order.id}::bigint, l.product_id, l.sku, l.product_name, l.category_ids, l.category_ids[1], l.brand_id, l.unit_price, l.quantity, l.line_total, now()
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
           AS l(position int, product_id bigint, sku text, product_name text, category_ids bigint[], brand_id bigint, unit_price numeric, quantity int, line_total numeric)
     ORDER BY l.position
    RETURNING id, product_id AS "productId", created_at AS "createdAt", updated_at AS "updatedAt"`;
  const byProduct = new Map(inserted.map((row) => [row.productId, row]));
  return lines
    .map(({ product, quantity, lineTotal }): OrderLine => {
      const row = byProduct.get(product.id);
      if (row === undefined) throw new Error(`the order line of product ${product.id} was not written`);
      return {
        id: row.id,
        orderId: order.id,
        productId: product.id,
        sku: product.sku,
        productName: product.name,
        categoryIds: [...product.categoryIds],
        categoryId: product.categoryIds[0] ?? null,
        brandId: product.brandId,
        unitPrice: product.price,
        quantity,
        lineTotal,
        createdAt: row.createdAt,
        updatedAt: row.updatedAt,
      };
    })
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Printable ASCII without spaces, e.g. a UUID. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{8,}$/;

/**
 * The order an earlier request with the same idempotency key placed; undefined when none did.
 * CONFLICT when the key placed an order of another cart or shopper.
 */
async function orderOfKey(tx: Tx, input: PlaceOrderInput): Promise<OrderWithLines | undefined> {
  const key = input.idempotencyKey;
  if (key === undefined) return undefined;
  if (!IDEMPOTENCY_KEY.test(key) || key.length > LIMITS.orderIdempotencyKey.max) {
    throw new DomainError(
      'BAD_USER_INPUT',
      `idempotencyKey must be 8 to ${LIMITS.orderIdempotencyKey.max} printable characters without spaces, e.g. a UUID`,
      { field: 'idempotencyKey' },
    );
  }
  // The cart's lock: a concurrent request with the same key waits here for the first, then finds its order.
  await tx.$queryRaw`SELECT 1 FROM carts WHERE id = ${input.cartId} FOR UPDATE`;
  const order = await tx.order.findUnique({ where: { idempotencyKey: key }, include: { lines: { orderBy: { id: 'asc' } } } });
  if (order === null) return undefined;
  const { customerId, sessionId } = input.shopper;
  const sameShopper =
    (order.customerId !== null && order.customerId === customerId) || (order.sessionId !== null && order.sessionId === sessionId);
  if (order.cartId !== input.cartId || !sameShopper) {
    throw new DomainError('CONFLICT', 'this idempotencyKey already placed another order: send a new key for a new order', {
      field: 'idempotencyKey',
    });
  }
  return order;
}

interface CheckedInput {
  readonly email: string;
  readonly billing: Address;
  readonly shipping: Address;
}

/** The shopper's email and addresses as stored; a card, store credit or a gift card needs an idempotency key. */
function checkedInput(input: PlaceOrderInput): CheckedInput {
  const email = input.email.trim().toLowerCase();
  if (email.length > LIMITS.email.max || !EMAIL.test(email))
    throw new DomainError('BAD_USER_INPUT', 'email must be an email address', { field: 'email' });
  const billing = validAddress('billingAddress', input.billingAddress);
  const shipping = input.shippingAddress === undefined ? billing : validAddress('shippingAddress', input.shippingAddress);
  if (input.card !== undefined && input.idempotencyKey === undefined) {
    throw new DomainError(
      'BAD_USER_INPUT',
      'paying by card needs an idempotencyKey, so a retried checkout never authorizes the card twice',
      { field: 'idempotencyKey' },
    );
  }
  if ((input.useStoreCredit === true || input.giftCardCode !== undefined) && input.idempotencyKey === undefined) {
    throw new DomainError(
      'BAD_USER_INPUT',
      'paying with store credit or a gift card needs an idempotencyKey, so a retried checkout never spends it twice',
      { field: 'idempotencyKey' },
    );
  }
  return { email, billing, shipping };
}

/** The shopper's cart, locked; store credit needs a signed-in customer's. */
async function cartToCheckOut(tx: Tx, deps: DomainDeps, input: PlaceOrderInput): Promise<ActiveCart> {
  const cart = await activeCartOf(tx, deps, input.cartId, input.shopper);
  if (input.useStoreCredit === true && cart.customerId === null) {
    throw new DomainError('BAD_USER_INPUT', 'store credit belongs to a customer: sign in to pay with it', { field: 'useStoreCredit' });
  }
  return cart;
}

/** What a checkout paying by card does before the order's transaction. */
export type CardStep =
  /** A request with this key placed its order already: it is the answer. */
  | { readonly placed: OrderWithLines }
  /** The card to authorize for the cart; null when nothing is to authorize (done by an earlier attempt, or credit covers the total). */
  | { readonly authorize: CartCard | null };

/**
 * The step before a card checkout's order transaction, in a short transaction of its own: the input
 * checked as placeOrder checks it, then what to authorize on the card for the cart as it is now (its
 * total less what a gift card and store credit cover). Nothing reaches the gateway here.
 */
export async function cardCheckoutStep(tx: Tx, deps: DomainDeps, input: PlaceOrderInput & { card: { token: string } }): Promise<CardStep> {
  checkedInput(input);
  const earlier = await orderOfKey(tx, input);
  if (earlier !== undefined) return { placed: earlier };
  const checkoutKey = input.idempotencyKey;
  if (checkoutKey === undefined) throw new Error('unreachable: checkedInput requires an idempotencyKey of a card');
  const cart = await cartToCheckOut(tx, deps, input);
  if (await hasCartTender(tx, cart.id, checkoutKey)) return { authorize: null };
  const quote = await quoteCart(tx, cart, await checkoutSettings(tx));
  const covered = await creditCoverAtCheckout(tx, {
    giftCardCode: input.giftCardCode,
    storeCreditOf: input.useStoreCredit === true ? cart.customerId : null,
    total: quote.total,
    currency: cart.currency,
  });
  const amount = quote.total.sub(covered);
  return {
    authorize: amount.gt(0)
      ? { cartId: cart.id, checkoutKey, cardToken: input.card.token, amount, currency: cart.currency, digest: quote.digest }
      : null,
  };
}

/**
 * Turns the shopper's cart into an order at today's prices and holds its stock. A business
 * customer's order waits in AWAITING_APPROVAL (when the setting says so), any other in
 * PENDING_PAYMENT. Emits shop.orders.placed.v1, order.status_changed, and shop.fraud.check_requested.v1 when the order
 * trips a fraud rule. Any refusal rolls the whole transaction back: no order, no hold, no event. A
 * request repeating an earlier one's idempotency key gets that order back, and nothing else happens.
 *
 * With `giftCardCode` and `useStoreCredit`, the gift card pays first, then store credit, and the card
 * the rest. The card pays with the cart tender authorized for this checkout beforehand (checkout(),
 * which the placeOrder mutation runs): the tender is locked and checked against the cart before the
 * order is written, and taken as the order's payment once the rest is known; an order waiting for
 * payment is then paid (PLACED, its stock committed). Nothing here waits for the gateway.
 */
export async function placeOrder(tx: Tx, deps: DomainDeps, input: PlaceOrderInput): Promise<OrderWithLines> {
  const { email, billing, shipping } = checkedInput(input);
  const earlier = await orderOfKey(tx, input);
  if (earlier !== undefined) return earlier;

  const cart = await cartToCheckOut(tx, deps, input);
  const settings = await checkoutSettings(tx);
  const { lines, subtotal, shipping: shippingCost, tax, total, digest } = await quoteCart(tx, cart, settings);
  const checkoutKey = input.idempotencyKey;
  // Before the order and the stock holds: a stale or voided authorization refuses the checkout before it takes any stock lock.
  const cardTender =
    input.card === undefined || checkoutKey === undefined ? null : await lockedCartTender(tx, cart.id, checkoutKey, digest);
  const customer = cart.customerId === null ? null : await tx.customer.findUnique({ where: { id: cart.customerId } });

  const now = deps.now();
  const awaitsApproval = customer?.isBusiness === true && settings.businessOrdersNeedApproval;
  const status = awaitsApproval ? 'AWAITING_APPROVAL' : 'PENDING_PAYMENT';

  const placed = await insertOrder(tx, {
    cart,
    idempotencyKey: input.idempotencyKey ?? null,
    email,
    status,
    subtotal,
    tax,
    shipping: shippingCost,
    total,
    billingAddress: billing,
    shippingAddress: shipping,
    placedAt: now,
  });
  const order: OrderWithLines = { ...placed, lines: await insertOrderLines(tx, placed, lines) };

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
  await orderStatusChanged(tx, deps, order, { from: null, to: order.status });

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
      total: moneyString(order.total, order.currency),
      currency: order.currency,
      rules_tripped: tripped,
      occurred_at: now.toISOString(),
    });
  }
  if (checkoutKey === undefined || (input.card === undefined && input.useStoreCredit !== true && input.giftCardCode === undefined))
    return order;
  // The gift card first, then store credit, then the card for the rest: the tenders together pay the total.
  const spend = (left: typeof total) => ({ cartId: cart.id, orderId: order.id, checkoutKey, total: left, currency: order.currency });
  let rest = total;
  if (input.giftCardCode !== undefined)
    rest = rest.sub((await spendGiftCardAtCheckout(tx, deps, input.giftCardCode, spend(rest))).capturedAmount);
  if (input.useStoreCredit === true && cart.customerId !== null && rest.gt(0)) {
    rest = rest.sub((await spendStoreCreditAtCheckout(tx, deps, cart.customerId, spend(rest)))?.capturedAmount ?? 0);
  }
  if (rest.gt(0) && input.card === undefined) {
    throw new DomainError(
      'BAD_USER_INPUT',
      `store credit and gift cards cover ${moneyString(total.sub(rest), order.currency)} of the ${moneyString(total, order.currency)} ${order.currency}: pay the rest by card`,
      {
        field: 'card',
      },
    );
  }
  await payWithCartTender(tx, cardTender, order, rest);
  return order.status === 'PENDING_PAYMENT' ? markOrderPaid(tx, deps, order.id) : order;
}
