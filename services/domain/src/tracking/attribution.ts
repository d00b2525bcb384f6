import { Prisma, type EventListener, type EventPayloads } from '@shop/platform';
import type { Tx } from '../kernel/index.ts';

/** Clicks this long before a conversion (inclusive) are credited with it. */
export const ATTRIBUTION_WINDOW_MS = 24 * 60 * 60 * 1000;

export type AttributionType = 'cart_add' | 'purchase';

/** Who converted: the cart's or order's customer and session, either of which may be missing. */
interface Converter {
  readonly customer_id: string | null;
  readonly session_id: string | null;
}

/**
 * The clicks credited with a conversion at `at`: clicks (never impressions) by the same session or the
 * same signed-in customer, recorded within the window before it, both ends included.
 */
function creditedClicks(converter: Converter, at: Date): Prisma.Sql {
  const from = new Date(at.getTime() - ATTRIBUTION_WINDOW_MS);
  const customerId = converter.customer_id === null ? null : BigInt(converter.customer_id);
  return Prisma.sql`
    SELECT id FROM tracking_events
     WHERE event_type = 'click'
       AND created_at >= ${from} AND created_at <= ${at}
       AND (session_id = ${converter.session_id}::text OR user_id = ${customerId}::bigint)`;
}

const hasConverter = (converter: Converter): boolean => converter.customer_id !== null || converter.session_id !== null;
const id = (value: string | null): bigint | null => (value === null ? null : BigInt(value));

/**
 * cart.item_added: every credited click gets a cart_add row for the product, its primary (first)
 * category and brand. A click is credited once per product (the partial unique key), so a redelivered
 * event, or more units of the same product, add nothing.
 */
export async function attributeCartAdd(tx: Tx, event: EventPayloads['cart.item_added']): Promise<number> {
  if (!hasConverter(event)) return 0;
  const at = new Date(event.added_at);
  return tx.$executeRaw`
    INSERT INTO tracking_attributions (tracking_event_id, attribution_type, product_id, category_id, brand_id, created_at)
    SELECT click.id, 'cart_add', ${BigInt(event.product_id)}::bigint, ${id(event.category_ids[0] ?? null)}::bigint,
           ${id(event.brand_id)}::bigint, ${at}
      FROM (${creditedClicks(event, at)}) AS click
    ON CONFLICT DO NOTHING`;
}

/**
 * order.completed: every credited click gets, per order line, a purchase row with the order, the
 * line's product, category and brand, and the line total as attributed revenue. Idempotent by the
 * partial unique key (click, order, product).
 */
export async function attributePurchase(tx: Tx, event: EventPayloads['order.completed']): Promise<number> {
  if (!hasConverter(event) || event.lines.length === 0) return 0;
  const at = new Date(event.completed_at);
  const lines = Prisma.join(
    event.lines.map(
      (line) =>
        Prisma.sql`(${BigInt(line.product_id)}::bigint, ${id(line.category_id)}::bigint, ${id(line.brand_id)}::bigint, ${line.line_total}::numeric)`,
    ),
  );
  return tx.$executeRaw`
    INSERT INTO tracking_attributions
           (tracking_event_id, attribution_type, product_id, category_id, brand_id, order_id, attributed_revenue, created_at)
    SELECT click.id, 'purchase', line.product_id, line.category_id, line.brand_id, ${BigInt(event.order_id)}::bigint, line.line_total, ${at}
      FROM (${creditedClicks(event, at)}) AS click
     CROSS JOIN (VALUES ${lines}) AS line (product_id, category_id, brand_id, line_total)
    ON CONFLICT DO NOTHING`;
}

/** Listener names are stable: the outbox tracks deliveries by them. */
export const attributeCartAddListener: EventListener<'cart.item_added'> = {
  name: 'attribute_cart_add',
  event: 'cart.item_added',
  handle: async (tx, payload) => void (await attributeCartAdd(tx, payload)),
};

export const attributePurchaseListener: EventListener<'order.completed'> = {
  name: 'attribute_purchase',
  event: 'order.completed',
  handle: async (tx, payload) => void (await attributePurchase(tx, payload)),
};

/** The attribution listeners, for the outbox dispatcher of the api (startOutbox's `listeners`). */
export const trackingListeners: readonly EventListener[] = [attributeCartAddListener, attributePurchaseListener];
