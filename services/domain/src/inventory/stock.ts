import { type DomainDeps, DomainError, idString, type Tx } from '../kernel/index.ts';

type StockReason = 'adjustment' | 'reservation' | 'reservation_released' | 'sale' | 'return' | 'restock';

interface StockRow {
  product_id: bigint;
  location_id: bigint;
  on_hand: number;
  reserved: number;
}

/** Emits shop.inventory.stock_changed.v1: quantities are sellable units (on hand minus reserved). */
async function stockChanged(
  tx: Tx,
  deps: DomainDeps,
  change: { productId: bigint; sku: string; locationId: bigint; before: number; after: number; reason: StockReason; orderId?: bigint },
): Promise<void> {
  await deps.emit(tx, 'shop.inventory.stock_changed.v1', {
    product_id: idString(change.productId),
    sku: change.sku,
    location_id: idString(change.locationId),
    previous_quantity: change.before,
    new_quantity: change.after,
    delta: change.after - change.before,
    reason: change.reason,
    order_id: change.orderId === undefined ? null : idString(change.orderId),
    occurred_at: deps.now().toISOString(),
  });
}

async function skuOf(tx: Tx, productId: bigint): Promise<string> {
  const product = await tx.product.findUnique({ where: { id: productId }, select: { sku: true } });
  if (product === null) throw new DomainError('NOT_FOUND', `product ${productId} does not exist`, { productId: idString(productId) });
  return product.sku;
}

/**
 * Sets the units on hand at a location (a count or a delivery). Refuses to go below what is reserved:
 * held units belong to orders.
 */
export async function setStockOnHand(
  tx: Tx,
  deps: DomainDeps,
  input: { productId: bigint; locationId: bigint; onHand: number; reason?: 'adjustment' | 'restock' },
): Promise<void> {
  if (!Number.isInteger(input.onHand) || input.onHand < 0)
    throw new DomainError('BAD_USER_INPUT', 'onHand must be a whole number, 0 or more', { field: 'onHand' });
  const sku = await skuOf(tx, input.productId);
  const [current] = await tx.$queryRaw<StockRow[]>`
    SELECT product_id, location_id, on_hand, reserved FROM stock_levels
     WHERE product_id = ${input.productId} AND location_id = ${input.locationId} FOR UPDATE`;
  const reserved = current?.reserved ?? 0;
  if (input.onHand < reserved) {
    throw new DomainError('BAD_USER_INPUT', `cannot set ${sku} to ${input.onHand} on hand: ${reserved} units are reserved for orders`, {
      field: 'onHand',
    });
  }
  await tx.stockLevel.upsert({
    where: { productId_locationId: { productId: input.productId, locationId: input.locationId } },
    create: { productId: input.productId, locationId: input.locationId, onHand: input.onHand },
    update: { onHand: input.onHand },
  });
  const before = (current?.on_hand ?? 0) - reserved;
  const after = input.onHand - reserved;
  if (before !== after)
    await stockChanged(tx, deps, {
      productId: input.productId,
      sku,
      locationId: input.locationId,
      before,
      after,
      reason: input.reason ?? 'adjustment',
    });
}

export interface ReservationRequest {
  readonly productId: bigint;
  readonly sku: string;
  readonly quantity: number;
}

/**
 * Holds stock for an order's lines until `expiresAt`, each line from the location with the most
 * sellable units. The conditional UPDATE is re-checked by PostgreSQL after any concurrent change to
 * the row, so concurrent orders never take more than is there; lines go in product order so two
 * orders never wait on each other's rows. Refuses the whole order when a line cannot be held.
 */
export async function reserveStock(
  tx: Tx,
  deps: DomainDeps,
  orderId: bigint,
  lines: readonly ReservationRequest[],
  expiresAt: Date,
): Promise<void> {
  for (const line of [...lines].sort((a, b) => (a.productId < b.productId ? -1 : a.productId > b.productId ? 1 : 0))) {
    const held = (await holdAtBestLocation(tx, orderId, line, expiresAt)) ?? (await holdAtAnyLocation(tx, orderId, line, expiresAt));
    if (held === undefined) {
      const [stock] = await tx.$queryRaw<{ available: number }[]>`
        SELECT coalesce(sum(on_hand - reserved), 0)::int AS available FROM stock_levels WHERE product_id = ${line.productId}`;
      const available = stock?.available ?? 0;
      throw new DomainError('BAD_USER_INPUT', `not enough stock for ${line.sku}: ${line.quantity} requested, ${available} available`, {
        productId: idString(line.productId),
        available,
      });
    }
    const after = held.on_hand - held.reserved;
    await stockChanged(tx, deps, {
      productId: line.productId,
      sku: line.sku,
      locationId: held.location_id,
      before: after + line.quantity,
      after,
      reason: 'reservation',
      orderId,
    });
  }
}

/**
 * The usual case in one statement: the units held at the location with the most sellable units,
 * and the reservation written. Nothing when a concurrent order took them first (PostgreSQL
 * re-checks the condition against the row it waited for).
 */
async function holdAtBestLocation(tx: Tx, orderId: bigint, line: ReservationRequest, expiresAt: Date): Promise<StockRow | undefined> {
  const [held] = await tx.$queryRaw<StockRow[]>`
    WITH best AS (
      SELECT location_id FROM stock_levels
       WHERE product_id = ${line.productId} AND on_hand - reserved >= ${line.quantity}
       ORDER BY on_hand - reserved DESC, location_id
       LIMIT 1),
    held AS (
      UPDATE stock_levels AS s SET reserved = s.reserved + ${line.quantity}, updated_at = now()
        FROM best
       WHERE s.product_id = ${line.productId} AND s.location_id = best.location_id AND s.on_hand - s.reserved >= ${line.quantity}
      RETURNING s.product_id, s.location_id, s.on_hand, s.reserved),
    reservation AS (
      INSERT INTO inventory_reservations (product_id, location_id, order_id, quantity, expires_at, updated_at)
      SELECT product_id, location_id, ${orderId}::bigint, ${line.quantity}::int, ${expiresAt}::timestamptz, now() FROM held)
    SELECT product_id, location_id, on_hand, reserved FROM held`;
  return held;
}

/** After a lost race: each location that still has enough, most sellable units first. */
async function holdAtAnyLocation(tx: Tx, orderId: bigint, line: ReservationRequest, expiresAt: Date): Promise<StockRow | undefined> {
  const candidates = await tx.$queryRaw<{ location_id: bigint }[]>`
    SELECT location_id FROM stock_levels
     WHERE product_id = ${line.productId} AND on_hand - reserved >= ${line.quantity}
     ORDER BY on_hand - reserved DESC, location_id`;
  for (const { location_id } of candidates) {
    const [held] = await tx.$queryRaw<StockRow[]>`
      UPDATE stock_levels SET reserved = reserved + ${line.quantity}, updated_at = now()
       WHERE product_id = ${line.productId} AND location_id = ${location_id} AND on_hand - reserved >= ${line.quantity}
       RETURNING product_id, location_id, on_hand, reserved`;
    if (held !== undefined) {
      await tx.inventoryReservation.create({
        data: { productId: line.productId, locationId: held.location_id, orderId, quantity: line.quantity, expiresAt },
      });
      return held;
    }
  }
  return undefined;
}

/** Payment: the held units leave the shelf (on hand and reserved both go down; sellable stock does not change). */
export async function commitReservations(tx: Tx, orderId: bigint): Promise<number> {
  const committed = await tx.$executeRaw`
    WITH held AS (
      UPDATE inventory_reservations SET state = 'COMMITTED', updated_at = now()
       WHERE order_id = ${orderId} AND state = 'HELD'
       RETURNING product_id, location_id, quantity)
    UPDATE stock_levels AS s SET on_hand = s.on_hand - h.quantity, reserved = s.reserved - h.quantity, updated_at = now()
      FROM held AS h WHERE s.product_id = h.product_id AND s.location_id = h.location_id`;
  return committed;
}

/**
 * Gives held units back to sale: `RELEASED` for a cancellation, `EXPIRED` when the hold ran out.
 * Only HELD reservations move, so releasing twice changes nothing.
 */
export async function releaseReservations(tx: Tx, deps: DomainDeps, orderId: bigint, to: 'RELEASED' | 'EXPIRED'): Promise<void> {
  const released = await tx.$queryRaw<(StockRow & { quantity: number; sku: string })[]>`
    WITH released AS (
      UPDATE inventory_reservations SET state = ${to}::reservation_state, updated_at = now()
       WHERE order_id = ${orderId} AND state = 'HELD'
       RETURNING product_id, location_id, quantity)
    UPDATE stock_levels AS s SET reserved = s.reserved - r.quantity, updated_at = now()
      FROM released AS r, products AS p
     WHERE s.product_id = r.product_id AND s.location_id = r.location_id AND p.id = r.product_id
    RETURNING s.product_id, s.location_id, s.on_hand, s.reserved, r.quantity, p.sku`;
  for (const row of released) {
    const after = row.on_hand - row.reserved;
    await stockChanged(tx, deps, {
      productId: row.product_id,
      sku: row.sku,
      locationId: row.location_id,
      before: after - row.quantity,
      after,
      reason: 'reservation_released',
      orderId,
    });
  }
}

interface ExpiredLevel {
  productId: string;
  locationId: string;
  sku: string;
  onHand: number;
  reserved: number;
  quantity: number;
  /** Set when the units came from one order only. */
  orderId: string | null;
}

/**
 * Ends every HELD reservation of these orders as EXPIRED in one statement, whatever their number:
 * the units go back to sale, and each product and location gets one stock event for all of them
 * (with the order's id when a single order held them). Returns how many reservations ended.
 */
export async function expireReservationsOf(tx: Tx, deps: DomainDeps, orderIds: readonly bigint[]): Promise<number> {
  if (orderIds.length === 0) return 0;
  const [result] = await tx.$queryRaw<{ reservations: number; levels: ExpiredLevel[] }[]>`
    WITH expired AS (
      UPDATE inventory_reservations SET state = 'EXPIRED', updated_at = now()
       WHERE order_id = ANY(${orderIds.map(String)}::bigint[]) AND state = 'HELD'
       RETURNING order_id, product_id, location_id, quantity),
    per_level AS (
      SELECT product_id, location_id, sum(quantity)::int AS quantity,
             CASE WHEN count(DISTINCT order_id) = 1 THEN min(order_id) END AS order_id
        FROM expired GROUP BY product_id, location_id),
    levels AS (
      UPDATE stock_levels AS s SET reserved = s.reserved - l.quantity, updated_at = now()
        FROM per_level AS l
       WHERE s.product_id = l.product_id AND s.location_id = l.location_id
      RETURNING s.product_id, s.location_id, s.on_hand, s.reserved, l.quantity, l.order_id)
    SELECT (SELECT count(*)::int FROM expired) AS reservations,
           coalesce((SELECT json_agg(json_build_object(
                       'productId', l.product_id::text, 'locationId', l.location_id::text, 'sku', p.sku, 'onHand', l.on_hand,
                       'reserved', l.reserved, 'quantity', l.quantity, 'orderId', l.order_id::text) ORDER BY l.product_id, l.location_id)
                       FROM levels AS l JOIN products AS p ON p.id = l.product_id), '[]'::json) AS levels`;
  for (const level of result?.levels ?? []) {
    const after = level.onHand - level.reserved;
    await stockChanged(tx, deps, {
      productId: BigInt(level.productId),
      sku: level.sku,
      locationId: BigInt(level.locationId),
      before: after - level.quantity,
      after,
      reason: 'reservation_released',
      ...(level.orderId === null ? {} : { orderId: BigInt(level.orderId) }),
    });
  }
  return result?.reservations ?? 0;
}

/** A cancelled paid order: its committed units go back on the shelf. */
export async function returnCommittedStock(tx: Tx, deps: DomainDeps, orderId: bigint): Promise<void> {
  const returned = await tx.$queryRaw<(StockRow & { quantity: number; sku: string })[]>`
    UPDATE stock_levels AS s SET on_hand = s.on_hand + r.quantity, updated_at = now()
      FROM inventory_reservations AS r, products AS p
     WHERE r.order_id = ${orderId} AND r.state = 'COMMITTED' AND s.product_id = r.product_id AND s.location_id = r.location_id AND p.id = r.product_id
    RETURNING s.product_id, s.location_id, s.on_hand, s.reserved, r.quantity, p.sku`;
  for (const row of returned) {
    const after = row.on_hand - row.reserved;
    await stockChanged(tx, deps, {
      productId: row.product_id,
      sku: row.sku,
      locationId: row.location_id,
      before: after - row.quantity,
      after,
      reason: 'return',
      orderId,
    });
  }
}
