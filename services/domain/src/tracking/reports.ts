import { Prisma, type PrismaClient } from '@shop/platform';
import { DomainError, money, moneyString, type Tx } from '../kernel/index.ts';
import { ATTRIBUTION_WINDOW_MS } from './attribution.ts';
import { TRACKED_ENTITY_TYPES, type TrackedEntityType } from './tracking-events.ts';

/** The longest range one report covers, in UTC days (both ends included). */
export const MAX_REPORT_DAYS = 92;
/** The most entity ids one report may be narrowed to. */
export const MAX_REPORT_ENTITY_IDS = 100;
/**
 * A UTC day is rolled up once it ended this long ago: events wait up to ~200 ms in an api's buffer (longer
 * while the database is down) and conversions arrive through the outbox, so a day's rows keep coming for
 * a little while after midnight. Until then reports compute the day from the raw rows.
 */
export const ROLLUP_SETTLE_MS = 60 * 60 * 1000;
/** A week's rollup runs in one transaction; a busy day of a large shop takes seconds. */
const ROLLUP_TIMEOUT_MS = 10 * 60 * 1000;

const DAY_MS = 24 * 60 * 60 * 1000;
const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
/** Nothing was tracked before; PostgreSQL has no year 0, which JavaScript dates accept. */
const FIRST_DAY = '1970-01-01';

/** A UTC day as YYYY-MM-DD. */
export type UtcDay = string;

/** The position of a row in a report's order: day, then entity type, then entity id. */
export interface TrackingReportKey {
  readonly day: UtcDay;
  readonly entityType: TrackedEntityType;
  readonly entityId: bigint;
}

export interface TrackingReportQuery {
  /** First UTC day, included. */
  readonly from: string;
  /** Last UTC day, included. */
  readonly to: string;
  readonly entityType?: TrackedEntityType | undefined;
  /** Only these entities (of entityType). */
  readonly entityIds?: readonly bigint[] | undefined;
  /** Rows per page. */
  readonly first: number;
  /** The key of the last row of the previous page. */
  readonly after?: TrackingReportKey | undefined;
}

export interface Money {
  /** With the currency's decimals, e.g. "19.90" EUR, "1191" JPY. */
  readonly amount: string;
  /** ISO 4217; XXX when the order no longer exists. */
  readonly currency: string;
}

/** One entity on one UTC day. Conversions count on the day they happened, not on the click's day. */
export interface TrackingReportRow extends TrackingReportKey {
  readonly impressions: number;
  readonly clicks: number;
  readonly repeatClicks: number;
  /** Sessions with at least one impression or click of the entity that day. */
  readonly uniqueSessions: number;
  /** clicks / impressions; null without impressions. */
  readonly ctr: number | null;
  /** repeatClicks / clicks; null without clicks. */
  readonly repeatClickShare: number | null;
  /** Cart adds that credited a click of the entity, each counted once however many of its clicks it credited. */
  readonly attributedCartAdds: number;
  /** Orders that credited a click of the entity, each counted once. */
  readonly attributedPurchases: number;
  /** The credited order lines' totals (each line once), per currency, sorted by currency. */
  readonly attributedRevenue: readonly Money[];
}

export interface TrackingReportPage {
  readonly rows: readonly TrackingReportRow[];
  readonly hasNextPage: boolean;
}

// ---------------------------------------------------------------------------------------------------
// Days and validation

const startOf = (day: UtcDay): Date => new Date(`${day}T00:00:00.000Z`);
const dayOf = (time: Date): UtcDay => time.toISOString().slice(0, 10);
const addDays = (day: UtcDay, days: number): UtcDay => dayOf(new Date(startOf(day).getTime() + days * DAY_MS));

/** True for a real calendar day written YYYY-MM-DD (2026-02-30 is not one), from 1970-01-01. */
export function isUtcDay(value: string): boolean {
  if (!DAY_PATTERN.test(value) || value < FIRST_DAY) return false;
  const time = startOf(value);
  return !Number.isNaN(time.getTime()) && dayOf(time) === value;
}

/** The last UTC day that has settled at `now` and may be rolled up. */
export function lastSettledDay(now: Date): UtcDay {
  return addDays(dayOf(new Date(now.getTime() - ROLLUP_SETTLE_MS)), -1);
}

const badInput = (field: string, message: string) => new DomainError('BAD_USER_INPUT', message, { field });

/** Refuses a query that is not a valid range of at most MAX_REPORT_DAYS UTC days, naming the argument. */
export function assertReportQuery(query: Omit<TrackingReportQuery, 'first' | 'after'>): void {
  for (const field of ['from', 'to'] as const) {
    if (!isUtcDay(query[field]))
      throw badInput(field, `${field} must be a UTC day written YYYY-MM-DD from ${FIRST_DAY} on, e.g. 2026-03-01`);
  }
  if (query.to < query.from) throw badInput('to', 'to must be the same day as from or later');
  const days = (startOf(query.to).getTime() - startOf(query.from).getTime()) / DAY_MS + 1;
  if (days > MAX_REPORT_DAYS)
    throw badInput('to', `a report covers at most ${MAX_REPORT_DAYS} days; from ${query.from} to ${query.to} is ${days}`);
  if (query.entityType !== undefined && !TRACKED_ENTITY_TYPES.includes(query.entityType)) {
    throw badInput('entityType', `entityType must be one of ${TRACKED_ENTITY_TYPES.join(', ')}`);
  }
  if (query.entityIds !== undefined) {
    if (query.entityType === undefined) throw badInput('entityIds', 'entityIds needs entityType: ids are per entity type');
    if (query.entityIds.length === 0 || query.entityIds.length > MAX_REPORT_ENTITY_IDS) {
      throw badInput('entityIds', `entityIds must hold 1 to ${MAX_REPORT_ENTITY_IDS} ids (leave it out for every entity)`);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// SQL. Every statement reads a time range: the BRIN indexes on created_at find a range of days, the
// (entity_type, entity_id, created_at) index one entity's rows; the rollup is read by its keys.

interface EntityFilter {
  readonly entityType?: TrackedEntityType | undefined;
  readonly entityIds?: readonly bigint[] | undefined;
}

const NO_FILTER: EntityFilter = {};

function whereEntity(alias: string, filter: EntityFilter): Prisma.Sql {
  const table = Prisma.raw(alias);
  if (filter.entityType === undefined) return Prisma.empty;
  const ids = filter.entityIds === undefined ? Prisma.empty : Prisma.sql` AND ${table}.entity_id IN (${Prisma.join(filter.entityIds)})`;
  return Prisma.sql` AND ${table}.entity_type = ${filter.entityType}${ids}`;
}

function whereAfter(alias: string, after: TrackingReportKey | undefined): Prisma.Sql {
  if (after === undefined) return Prisma.empty;
  const table = Prisma.raw(alias);
  return Prisma.sql` AND (${table}.day, ${table}.entity_type, ${table}.entity_id) > (${after.day}::date, ${after.entityType}::text, ${after.entityId}::bigint)`;
}

/**
 * The attribution rows of conversions in [start, end) with their click's entity and the conversion's UTC
 * day. The credited click is at most ATTRIBUTION_WINDOW_MS older than its conversion: saying so lets the
 * planner start from one entity's clicks.
 */
function credited(start: Date, end: Date, filter: EntityFilter): Prisma.Sql {
  const clicksFrom = new Date(start.getTime() - ATTRIBUTION_WINDOW_MS);
  return Prisma.sql`
    SELECT (a.created_at AT TIME ZONE 'UTC')::date AS day, e.entity_type, e.entity_id, a.attribution_type,
           a.product_id, a.order_id, a.attributed_revenue, a.created_at AS converted_at
      FROM tracking_attributions a
      JOIN tracking_events e ON e.id = a.tracking_event_id
     WHERE a.created_at >= ${start} AND a.created_at < ${end}
       AND e.event_type = 'click' AND e.created_at >= ${clicksFrom} AND e.created_at < ${end}${whereEntity('e', filter)}`;
}

/**
 * Per UTC day and entity in [start, end), from the raw rows: the rollup's columns. A cart add credits
 * every click in its window, one row each: it is counted once per entity, told apart from other cart adds
 * by product and time (microseconds). An order is counted once per entity.
 */
export function rawDailyStats(start: Date, end: Date, filter: EntityFilter = NO_FILTER): Prisma.Sql {
  return Prisma.sql`
    SELECT day, entity_type, entity_id,
           sum(impressions)::int AS impressions, sum(clicks)::int AS clicks, sum(repeat_clicks)::int AS repeat_clicks,
           sum(unique_sessions)::int AS unique_sessions, sum(cart_adds)::int AS cart_adds, sum(purchases)::int AS purchases
      FROM (
        SELECT (e.created_at AT TIME ZONE 'UTC')::date AS day, e.entity_type, e.entity_id,
               count(*) FILTER (WHERE e.event_type = 'impression') AS impressions,
               count(*) FILTER (WHERE e.event_type = 'click') AS clicks,
               count(*) FILTER (WHERE e.is_repeat) AS repeat_clicks,
               count(DISTINCT e.session_id) AS unique_sessions,
               0 AS cart_adds, 0 AS purchases
          FROM tracking_events e
         WHERE e.created_at >= ${start} AND e.created_at < ${end}${whereEntity('e', filter)}
         GROUP BY 1, 2, 3
        UNION ALL
        SELECT c.day, c.entity_type, c.entity_id, 0, 0, 0, 0,
               count(DISTINCT (c.product_id, c.converted_at)) FILTER (WHERE c.attribution_type = 'cart_add'),
               count(DISTINCT c.order_id) FILTER (WHERE c.attribution_type = 'purchase')
          FROM (${credited(start, end, filter)}) AS c
         GROUP BY 1, 2, 3
      ) AS parts
     GROUP BY day, entity_type, entity_id`;
}

/**
 * Attributed revenue per UTC day, entity and currency in [start, end): each credited order line once per
 * entity (several clicks of one entity credited with the same line share it), in the order's currency.
 */
export function rawDailyRevenue(start: Date, end: Date, filter: EntityFilter = NO_FILTER): Prisma.Sql {
  return Prisma.sql`
    SELECT line.day, line.entity_type, line.entity_id, coalesce(o.currency, 'XXX') AS currency, sum(line.revenue) AS revenue
      FROM (SELECT c.day, c.entity_type, c.entity_id, c.order_id, max(c.attributed_revenue) AS revenue
              FROM (${credited(start, end, filter)}) AS c
             WHERE c.attribution_type = 'purchase'
             GROUP BY c.day, c.entity_type, c.entity_id, c.order_id, c.product_id) AS line
      LEFT JOIN orders o ON o.id = line.order_id
     GROUP BY 1, 2, 3, 4`;
}

const revenueJson = (source: Prisma.Sql, alias: string): Prisma.Sql => {
  const table = Prisma.raw(alias);
  return Prisma.sql`coalesce((SELECT json_agg(json_build_object('currency', v.currency, 'amount', v.revenue::text) ORDER BY v.currency)
                                FROM ${source} v
                               WHERE v.day = ${table}.day AND v.entity_type = ${table}.entity_type AND v.entity_id = ${table}.entity_id), '[]'::json)::text`;
};

const REPORT_COLUMNS = Prisma.raw('day, entity_type, entity_id, impressions, clicks, repeat_clicks, unique_sessions, cart_adds, purchases');

/** The page's rows of the rolled-up days [from, through], in report order. */
export function rolledUpRows(
  from: UtcDay,
  through: UtcDay,
  filter: EntityFilter,
  after: TrackingReportKey | undefined,
  limit: number,
): Prisma.Sql {
  return Prisma.sql`
    SELECT ${REPORT_COLUMNS}, ${revenueJson(Prisma.raw('tracking_daily_revenue'), 's')} AS revenue
      FROM tracking_daily_stats s
     WHERE s.day >= ${from}::date AND s.day <= ${through}::date${whereEntity('s', filter)}${whereAfter('s', after)}
     ORDER BY s.day, s.entity_type, s.entity_id
     LIMIT ${limit}`;
}

/** The page's rows of the days [from, to] computed from the raw rows, in report order. */
export function rawRows(from: UtcDay, to: UtcDay, filter: EntityFilter, after: TrackingReportKey | undefined, limit: number): Prisma.Sql {
  const start = startOf(from);
  const end = startOf(addDays(to, 1));
  return Prisma.sql`
    WITH stats AS (${rawDailyStats(start, end, filter)}), revenue AS (${rawDailyRevenue(start, end, filter)})
    SELECT ${REPORT_COLUMNS}, ${revenueJson(Prisma.raw('revenue'), 's')} AS revenue
      FROM stats s
     WHERE true${whereAfter('s', after)}
     ORDER BY s.day, s.entity_type, s.entity_id
     LIMIT ${limit}`;
}

// ---------------------------------------------------------------------------------------------------
// The rollup

const dayList = (days: readonly UtcDay[]): Prisma.Sql => Prisma.join(days.map((day) => Prisma.sql`${day}::date`));

/**
 * Rolls the days up (every entity), except those the rollup already holds: claims the days' rows in
 * tracking_rollup_days (a concurrent report rolling the same days waits for this transaction, then finds
 * them done), replaces their stats and revenue, and returns the days it rolled up. Call it only for
 * settled days (see lastSettledDay): rows of a day written after its rollup are not added.
 */
export async function rollUpTrackingDaysOf(tx: Tx, days: readonly UtcDay[]): Promise<UtcDay[]> {
  const invalid = days.find((day) => !isUtcDay(day));
  if (invalid !== undefined) throw new Error(`not a UTC day: ${invalid}`);
  if (days.length === 0) return [];
  const claimed = (
    await tx.$queryRaw<{ day: string }[]>`
      INSERT INTO tracking_rollup_days (day) VALUES ${Prisma.join(days.map((day) => Prisma.sql`(${day}::date)`))}
      ON CONFLICT DO NOTHING
      RETURNING to_char(day, 'YYYY-MM-DD') AS day`
  )
    .map((row) => row.day)
    .sort();
  const [first, last] = [claimed[0], claimed.at(-1)];
  if (first === undefined || last === undefined) return [];
  const start = startOf(first);
  const end = startOf(addDays(last, 1));
  const rolled = dayList(claimed);
  // Rows left from before a day's row was deleted (deleting it asks for a recomputation).
  await tx.$executeRaw`DELETE FROM tracking_daily_stats WHERE day IN (${rolled})`;
  await tx.$executeRaw`DELETE FROM tracking_daily_revenue WHERE day IN (${rolled})`;
  await tx.$executeRaw`
    INSERT INTO tracking_daily_stats (${REPORT_COLUMNS})
    SELECT ${REPORT_COLUMNS} FROM (${rawDailyStats(start, end)}) AS stats WHERE day IN (${rolled})`;
  await tx.$executeRaw`
    INSERT INTO tracking_daily_revenue (day, entity_type, entity_id, currency, revenue)
    SELECT day, entity_type, entity_id, currency, revenue FROM (${rawDailyRevenue(start, end)}) AS revenue WHERE day IN (${rolled})`;
  return claimed;
}

/** Days rolled up per transaction: bounded work per transaction, few round trips. */
const ROLLUP_DAYS_PER_TRANSACTION = 7;

/** Rolls up the days of [from, through] the rollup does not hold yet, a week per transaction; returns them. */
export async function rollUpTrackingDays(prisma: PrismaClient, from: UtcDay, through: UtcDay): Promise<UtcDay[]> {
  if (through < from) return [];
  const missing = await prisma.$queryRaw<{ day: string }[]>`
    SELECT to_char(d, 'YYYY-MM-DD') AS day
      FROM generate_series(${from}::date, ${through}::date, interval '1 day') AS d
     WHERE NOT EXISTS (SELECT 1 FROM tracking_rollup_days r WHERE r.day = d::date)
     ORDER BY d`;
  const rolled: UtcDay[] = [];
  for (let index = 0; index < missing.length; index += ROLLUP_DAYS_PER_TRANSACTION) {
    const days = missing.slice(index, index + ROLLUP_DAYS_PER_TRANSACTION).map((row) => row.day);
    rolled.push(
      ...(await prisma.$transaction((tx) => rollUpTrackingDaysOf(tx, days), { timeout: ROLLUP_TIMEOUT_MS, maxWait: ROLLUP_TIMEOUT_MS })),
    );
  }
  return rolled;
}

// ---------------------------------------------------------------------------------------------------
// The report

interface ReportRecord {
  day: string;
  entity_type: string;
  entity_id: string;
  impressions: number;
  clicks: number;
  repeat_clicks: number;
  unique_sessions: number;
  cart_adds: number;
  purchases: number;
  revenue: string;
}

const ratio = (part: number, whole: number): number | null => (whole === 0 ? null : part / whole);

function rowOf(record: ReportRecord): TrackingReportRow {
  return {
    day: record.day,
    entityType: record.entity_type as TrackedEntityType,
    entityId: BigInt(record.entity_id),
    impressions: record.impressions,
    clicks: record.clicks,
    repeatClicks: record.repeat_clicks,
    uniqueSessions: record.unique_sessions,
    ctr: ratio(record.clicks, record.impressions),
    repeatClickShare: ratio(record.repeat_clicks, record.clicks),
    attributedCartAdds: record.cart_adds,
    attributedPurchases: record.purchases,
    attributedRevenue: (JSON.parse(record.revenue) as Money[]).map(({ currency, amount }) => ({
      currency,
      amount: moneyString(money(amount), currency),
    })),
  };
}

/**
 * Per entity and UTC day over [from, to], in order of day, entity type and entity id; only entities
 * with events or conversions that day have a row. Settled days come from the rollup (rolled up here
 * first when a day is missing); the rest (today, and yesterday during its first hour) from the raw
 * rows. Validates the query (BAD_USER_INPUT naming the argument).
 */
export async function trackingReport(prisma: PrismaClient, query: TrackingReportQuery, now: Date): Promise<TrackingReportPage> {
  assertReportQuery(query);
  const settled = lastSettledDay(now);
  const rolledThrough = settled < query.to ? settled : query.to;
  await rollUpTrackingDays(prisma, query.from, rolledThrough);

  const limit = query.first + 1;
  const filter: EntityFilter = { entityType: query.entityType, entityIds: query.entityIds };
  const parts: Prisma.Sql[] = [];
  if (rolledThrough >= query.from) parts.push(rolledUpRows(query.from, rolledThrough, filter, query.after, limit));
  const rawFrom = rolledThrough >= query.from ? addDays(rolledThrough, 1) : query.from;
  if (rawFrom <= query.to) parts.push(rawRows(rawFrom, query.to, filter, query.after, limit));

  const records = await prisma.$queryRaw<ReportRecord[]>`
    SELECT to_char(r.day, 'YYYY-MM-DD') AS day, r.entity_type, r.entity_id::text AS entity_id, r.impressions, r.clicks,
           r.repeat_clicks, r.unique_sessions, r.cart_adds, r.purchases, r.revenue
      FROM (${Prisma.join(
        parts.map((part) => Prisma.sql`(${part})`),
        ' UNION ALL ',
      )}) AS r
     ORDER BY r.day, r.entity_type, r.entity_id
     LIMIT ${limit}`;
  return { rows: records.slice(0, query.first).map(rowOf), hasNextPage: records.length > query.first };
}
