import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventPayloads, Prisma } from '@shop/platform';
import { createStaffUser, ensureRole } from '@shop/domain/auth';
import {
  attributeCartAdd,
  attributePurchase,
  insertTrackingEvents,
  rawDailyStats,
  rawRows,
  rolledUpRows,
  trackingReport,
  type TrackedEntityType,
  type TrackingEventRecord,
  type TrackingReportQuery,
  type TrackingReportRow,
} from '@shop/domain/tracking';
import { bearer, openGraphqlApi, type GraphqlApi } from '../support/graphql-harness.ts';

let api: GraphqlApi;
let admin: Record<string, string>;

beforeAll(async () => {
  api = await openGraphqlApi('graphql_reports');
  admin = await api.adminHeaders();
});

afterAll(async () => {
  await api?.close();
});

const REPORT = `query ($from: String!, $to: String!, $entityType: TrackedEntityType, $entityIds: [ID!], $first: Int, $after: String) {
  trackingReport(from: $from, to: $to, entityType: $entityType, entityIds: $entityIds, first: $first, after: $after) {
    nodes {
      day entityType entityId impressions clicks repeatClicks uniqueSessions ctr repeatClickShare
      attributedCartAdds attributedPurchases attributedRevenue { amount currency }
    }
    pageInfo { endCursor hasNextPage }
  }
}`;

interface ReportNode {
  day: string;
  entityType: string;
  entityId: string;
  impressions: number;
  clicks: number;
  repeatClicks: number;
  uniqueSessions: number;
  ctr: number | null;
  repeatClickShare: number | null;
  attributedCartAdds: number;
  attributedPurchases: number;
  attributedRevenue: { amount: string; currency: string }[];
}

interface ReportData {
  trackingReport: { nodes: ReportNode[]; pageInfo: { endCursor: string | null; hasNextPage: boolean } };
}

const at = (iso: string): Date => new Date(iso);

/** Events as the buffer writes them; `is_repeat` as given (the route decides it, here the test does). */
function event(partial: {
  type: 'impression' | 'click';
  entity: [TrackedEntityType, number];
  session: string;
  at: string;
  repeat?: boolean;
  userId?: bigint;
}): TrackingEventRecord {
  return {
    eventType: partial.type,
    entityType: partial.entity[0],
    entityId: BigInt(partial.entity[1]),
    userId: partial.userId ?? null,
    customerGroupId: null,
    isAuthenticated: partial.userId !== undefined,
    sessionId: partial.session,
    ipAddress: '203.0.113.9',
    userAgent: 'reports-test',
    pageUrl: '/',
    referrerUrl: '',
    isRepeat: partial.repeat ?? false,
    channelId: null,
    createdAt: at(partial.at),
  };
}

async function cartAdd(session: string, productId: number, addedAt: string): Promise<number> {
  const payload: EventPayloads['cart.item_added'] = {
    event_id: randomUUID(),
    schema_version: 1,
    occurred_at: addedAt,
    cart_id: '1',
    cart_line_id: '1',
    customer_id: null,
    session_id: session,
    product_id: String(productId),
    category_ids: [],
    brand_id: null,
    quantity: 1,
    added_at: addedAt,
  };
  return api.prisma.$transaction((tx) => attributeCartAdd(tx, payload));
}

let orderNumber = 0;

/** An order row (the report reads its currency) and its completion credited to the session's clicks. */
async function purchase(
  session: string,
  currency: string,
  completedAt: string,
  lines: [productId: number, total: string][],
): Promise<string> {
  const channel = await api.prisma.channel.upsert({
    where: { code: 'reports' },
    create: { code: 'reports', name: 'Reports', defaultCurrency: 'EUR' },
    update: {},
  });
  orderNumber += 1;
  const total = lines.reduce((sum, [, amount]) => sum + Number(amount), 0).toFixed(2);
  const address = { name: 'A', line1: 'B', postalCode: '1', city: 'C', countryCode: 'DE' };
  const order = await api.prisma.order.create({
    data: {
      number: `SO-REPORTS-${orderNumber}`,
      channelId: channel.id,
      sessionId: session,
      email: 'buyer@example.com',
      status: 'COMPLETED',
      currency,
      subtotal: total,
      tax: '0',
      shipping: '0',
      discount: '0',
      total,
      billingAddress: address,
      shippingAddress: address,
      completedAt: at(completedAt),
    },
  });
  const payload: EventPayloads['order.completed'] = {
    event_id: randomUUID(),
    schema_version: 1,
    occurred_at: completedAt,
    order_id: order.id.toString(),
    customer_id: null,
    session_id: session,
    completed_at: completedAt,
    currency,
    lines: lines.map(([productId, lineTotal], index) => ({
      order_line_id: String(index + 1),
      product_id: String(productId),
      category_id: null,
      brand_id: null,
      line_total: lineTotal,
    })),
  };
  await api.prisma.$transaction((tx) => attributePurchase(tx, payload));
  return order.id.toString();
}

const report = (query: Omit<TrackingReportQuery, 'first'> & { first?: number }, now: Date) =>
  trackingReport(api.prisma, { first: 100, ...query }, now);

describe('trackingReport', () => {
  const BANNER: [TrackedEntityType, number] = ['banner', 7001];
  const SLIDE: [TrackedEntityType, number] = ['slide', 7001];
  const HERO: [TrackedEntityType, number] = ['hero', 7002];

  beforeAll(async () => {
    // 2024-03-10 and 2024-03-11 (UTC): three sessions on the banner, one on the slide.
    await insertTrackingEvents(api.platform.database.pool, [
      event({ type: 'impression', entity: BANNER, session: 'r-a', at: '2024-03-10T08:00:00Z' }),
      event({ type: 'impression', entity: BANNER, session: 'r-a', at: '2024-03-10T08:00:05Z' }),
      event({ type: 'impression', entity: BANNER, session: 'r-b', at: '2024-03-10T09:00:00Z' }),
      event({ type: 'impression', entity: BANNER, session: 'r-c', at: '2024-03-10T23:59:59.999Z' }),
      event({ type: 'click', entity: BANNER, session: 'r-a', at: '2024-03-10T08:00:10Z' }),
      event({ type: 'click', entity: BANNER, session: 'r-a', at: '2024-03-10T08:00:20Z', repeat: true }),
      event({ type: 'click', entity: BANNER, session: 'r-b', at: '2024-03-10T09:00:30Z' }),
      event({ type: 'impression', entity: SLIDE, session: 'r-a', at: '2024-03-10T10:00:00Z' }),
      // The next UTC day: one more session, no impression but a click.
      event({ type: 'click', entity: BANNER, session: 'r-d', at: '2024-03-11T00:00:00Z' }),
      event({ type: 'impression', entity: HERO, session: 'r-e', at: '2024-03-11T12:00:00Z' }),
    ]);
    // r-a clicked the banner twice: its cart add credits both clicks, counted once for the banner.
    expect(await cartAdd('r-a', 501, '2024-03-10T08:30:00Z')).toBe(2);
    // Another product: a second cart add.
    expect(await cartAdd('r-a', 502, '2024-03-10T08:31:00Z')).toBe(2);
    // r-b: a cart add the next day, still within 24 hours of its click: it counts on 2024-03-11.
    expect(await cartAdd('r-b', 501, '2024-03-11T01:00:00Z')).toBe(1);
    // r-a's order: two lines, each credited by both clicks; revenue counts each line once.
    await purchase('r-a', 'EUR', '2024-03-10T12:00:00Z', [
      [501, '19.90'],
      [502, '5.10'],
    ]);
    // r-b's order in another currency.
    await purchase('r-b', 'USD', '2024-03-10T13:00:00Z', [[501, '10.00']]);
  });

  const EXPECTED: TrackingReportRow[] = [
    {
      day: '2024-03-10',
      entityType: 'banner',
      entityId: 7001n,
      impressions: 4,
      clicks: 3,
      repeatClicks: 1,
      uniqueSessions: 3,
      ctr: 0.75,
      repeatClickShare: 1 / 3,
      attributedCartAdds: 2,
      attributedPurchases: 2,
      attributedRevenue: [
        { currency: 'EUR', amount: '25.00' },
        { currency: 'USD', amount: '10.00' },
      ],
    },
    {
      day: '2024-03-10',
      entityType: 'slide',
      entityId: 7001n,
      impressions: 1,
      clicks: 0,
      repeatClicks: 0,
      uniqueSessions: 1,
      ctr: 0,
      repeatClickShare: null,
      attributedCartAdds: 0,
      attributedPurchases: 0,
      attributedRevenue: [],
    },
    {
      day: '2024-03-11',
      entityType: 'banner',
      entityId: 7001n,
      impressions: 0,
      clicks: 1,
      repeatClicks: 0,
      uniqueSessions: 1,
      ctr: null,
      repeatClickShare: 0,
      attributedCartAdds: 1,
      attributedPurchases: 0,
      attributedRevenue: [],
    },
    {
      day: '2024-03-11',
      entityType: 'hero',
      entityId: 7002n,
      impressions: 1,
      clicks: 0,
      repeatClicks: 0,
      uniqueSessions: 1,
      ctr: 0,
      repeatClickShare: null,
      attributedCartAdds: 0,
      attributedPurchases: 0,
      attributedRevenue: [],
    },
  ];

  it('computes the figures from the raw rows while the days have not settled, and the same from the rollup after', async () => {
    const query = { from: '2024-03-09', to: '2024-03-11' };
    // 00:30 on the 12th: the 11th ended less than an hour ago, the 10th is settled.
    const early = await report(query, at('2024-03-12T00:30:00Z'));
    expect(early).toEqual({ rows: EXPECTED, hasNextPage: false });
    const rolled = await api.prisma.$queryRaw<
      { day: string }[]
    >`SELECT to_char(day, 'YYYY-MM-DD') AS day FROM tracking_rollup_days ORDER BY day`;
    expect(rolled.map((row) => row.day)).toEqual(['2024-03-09', '2024-03-10']);

    const late = await report(query, at('2024-03-12T01:00:00Z'));
    expect(late).toEqual({ rows: EXPECTED, hasNextPage: false });
    const stats = await api.prisma.trackingDailyStat.count({ where: { day: { gte: at('2024-03-09'), lte: at('2024-03-11') } } });
    expect(stats).toBe(4);
    // Earlier: only the 9th had settled, the 10th and 11th are computed from the raw rows although the rollup holds the 10th.
    expect(await report(query, at('2024-03-10T12:00:00Z'))).toEqual({ rows: EXPECTED, hasNextPage: false });
  });

  it('narrows to one entity type or to entity ids', async () => {
    const now = at('2024-04-01T00:00:00Z');
    const banners = await report({ from: '2024-03-10', to: '2024-03-11', entityType: 'banner' }, now);
    expect(banners.rows.map((row) => [row.day, row.entityType])).toEqual([
      ['2024-03-10', 'banner'],
      ['2024-03-11', 'banner'],
    ]);
    const byId = await report({ from: '2024-03-10', to: '2024-03-11', entityType: 'hero', entityIds: [7002n, 9999n] }, now);
    expect(byId.rows).toEqual([EXPECTED[3]]);
    // The same filter on raw days.
    const raw = await report(
      { from: '2024-03-10', to: '2024-03-11', entityType: 'banner', entityIds: [7001n] },
      at('2024-03-10T12:00:00Z'),
    );
    expect(raw.rows).toEqual([EXPECTED[0], EXPECTED[2]]);
  });

  it('rolls each day up once when reports run at the same time', async () => {
    await insertTrackingEvents(
      api.platform.database.pool,
      Array.from({ length: 20 }, (_, day) =>
        event({ type: 'impression', entity: HERO, session: 'r-same', at: `2024-06-${String(day + 1).padStart(2, '0')}T10:00:00Z` }),
      ),
    );
    const query = { from: '2024-06-01', to: '2024-06-20', entityType: 'hero' as const };
    const now = at('2024-07-01T00:00:00Z');
    const pages = await Promise.all([report(query, now), report(query, now), report(query, now)]);
    expect(pages[1]).toEqual(pages[0]);
    expect(pages[2]).toEqual(pages[0]);
    expect(pages[0]?.rows).toHaveLength(20);
    expect(await api.prisma.trackingRollupDay.count({ where: { day: { gte: at('2024-06-01'), lte: at('2024-06-20') } } })).toBe(20);
  });

  it('keeps a rolled-up day as it was until its tracking_rollup_days row is deleted', async () => {
    const now = at('2024-04-01T00:00:00Z');
    const query = { from: '2024-03-10', to: '2024-03-10', entityType: 'slide' as const };
    expect((await report(query, now)).rows[0]?.impressions).toBe(1);
    await insertTrackingEvents(api.platform.database.pool, [
      event({ type: 'impression', entity: SLIDE, session: 'r-late', at: '2024-03-10T11:00:00Z' }),
    ]);
    expect((await report(query, now)).rows[0]?.impressions).toBe(1);
    await api.prisma.trackingRollupDay.delete({ where: { day: at('2024-03-10') } });
    expect((await report(query, now)).rows[0]).toMatchObject({ impressions: 2, uniqueSessions: 2 });
  });
});

describe('Query.trackingReport', () => {
  it('answers the admin with ids as strings and money as strings', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const entityId = 7100 + Math.floor(Math.random() * 1000);
    await insertTrackingEvents(api.platform.database.pool, [
      event({ type: 'impression', entity: ['hero', entityId], session: 'g-a', at: new Date().toISOString() }),
      event({ type: 'click', entity: ['hero', entityId], session: 'g-a', at: new Date().toISOString() }),
    ]);
    const data = await api.data<ReportData>(REPORT, { from: today, to: today, entityType: 'hero', entityIds: [String(entityId)] }, admin);
    expect(data.trackingReport.nodes).toEqual([
      {
        day: today,
        entityType: 'hero',
        entityId: String(entityId),
        impressions: 1,
        clicks: 1,
        repeatClicks: 0,
        uniqueSessions: 1,
        ctr: 1,
        repeatClickShare: 0,
        attributedCartAdds: 0,
        attributedPurchases: 0,
        attributedRevenue: [],
      },
    ]);
    const revenue = await api.data<ReportData>(
      REPORT,
      { from: '2024-03-10', to: '2024-03-10', entityType: 'banner', entityIds: ['7001'] },
      admin,
    );
    expect(revenue.trackingReport.nodes[0]?.attributedRevenue).toEqual([
      { amount: '25.00', currency: 'EUR' },
      { amount: '10.00', currency: 'USD' },
    ]);
  });

  it('pages through rolled-up and raw days alike', async () => {
    const entityIds = [7201, 7202, 7203];
    const now = Date.now();
    const days = [3, 2, 1, 0].map((back) => new Date(now - back * 24 * 60 * 60 * 1000));
    await insertTrackingEvents(
      api.platform.database.pool,
      days.flatMap((day) =>
        entityIds.map((id) => event({ type: 'impression', entity: ['slide', id], session: 'p-a', at: day.toISOString() })),
      ),
    );
    const variables = {
      from: days[0]?.toISOString().slice(0, 10),
      to: days[3]?.toISOString().slice(0, 10),
      entityType: 'slide',
      entityIds: entityIds.map(String),
    };
    const whole = (await api.data<ReportData>(REPORT, variables, admin)).trackingReport;
    expect(whole.nodes).toHaveLength(12);
    expect(whole.pageInfo.hasNextPage).toBe(false);

    const seen: ReportNode[] = [];
    let after: string | null = null;
    for (let page = 0; page < 10; page += 1) {
      const next: ReportData['trackingReport'] = (await api.data<ReportData>(REPORT, { ...variables, first: 5, after }, admin))
        .trackingReport;
      seen.push(...next.nodes);
      after = next.pageInfo.endCursor;
      if (!next.pageInfo.hasNextPage) break;
    }
    expect(seen).toEqual(whole.nodes);
    expect(seen.map((row) => `${row.day}/${row.entityId}`)).toEqual(
      days.flatMap((day) => entityIds.map((id) => `${day.toISOString().slice(0, 10)}/${id}`)),
    );
  });

  it('is for staff with reports.read', async () => {
    const variables = { from: '2024-03-10', to: '2024-03-10' };
    expect((await api.error(REPORT, variables)).extensions.code).toBe('UNAUTHENTICATED');
    await api.prisma.$transaction(async (tx) => {
      await ensureRole(tx, { name: 'report-viewer', permissions: ['reports.read'] });
      await createStaffUser(tx, { email: 'analyst@shop.test', password: 'analyst-password-1', name: 'Analyst', roles: ['report-viewer'] });
      await createStaffUser(tx, { email: 'packer@shop.test', password: 'packer-password-1', name: 'Packer' });
    });
    const login = async (email: string, password: string) =>
      bearer(
        (
          await api.data<{ loginStaff: { accessToken: string } }>(
            'mutation ($e: String!, $p: String!) { loginStaff(email: $e, password: $p) { accessToken } }',
            { e: email, p: password },
          )
        ).loginStaff.accessToken,
      );
    const packer = await api.error(REPORT, variables, await login('packer@shop.test', 'packer-password-1'));
    expect(packer).toMatchObject({
      message: 'missing permission reports.read',
      extensions: { code: 'FORBIDDEN', permission: 'reports.read' },
    });
    const analyst = await api.data<ReportData>(REPORT, variables, await login('analyst@shop.test', 'analyst-password-1'));
    expect(analyst.trackingReport.nodes.length).toBeGreaterThan(0);
  });

  it.each([
    [{ from: '2024-3-10', to: '2024-03-10' }, 'from', 'from must be a UTC day written YYYY-MM-DD from 1970-01-01 on, e.g. 2026-03-01'],
    [{ from: '2024-03-10', to: '2024-02-30' }, 'to', 'to must be a UTC day written YYYY-MM-DD from 1970-01-01 on, e.g. 2026-03-01'],
    [{ from: '0000-01-01', to: '2024-03-10' }, 'from', 'from must be a UTC day written YYYY-MM-DD from 1970-01-01 on, e.g. 2026-03-01'],
    [{ from: '2024-03-10', to: '2024-03-09' }, 'to', 'to must be the same day as from or later'],
    [{ from: '2024-01-01', to: '2024-04-02' }, 'to', 'a report covers at most 92 days; from 2024-01-01 to 2024-04-02 is 93'],
    [{ from: '2024-03-10', to: '2024-03-10', entityIds: ['1'] }, 'entityIds', 'entityIds needs entityType: ids are per entity type'],
    [
      { from: '2024-03-10', to: '2024-03-10', entityType: 'banner', entityIds: [] },
      'entityIds',
      'entityIds must hold 1 to 100 ids (leave it out for every entity)',
    ],
    [
      { from: '2024-03-10', to: '2024-03-10', entityType: 'banner', entityIds: ['x'] },
      'entityIds[0]',
      'entityIds[0] must be a numeric id such as "42"',
    ],
    [{ from: '2024-03-10', to: '2024-03-10', first: 1001 }, 'first', 'first must be a whole number from 1 to 1000'],
    [
      { from: '2024-03-10', to: '2024-03-10', after: 'bm9wZQ' },
      'after',
      'after must be an endCursor this API returned for a tracking report',
    ],
  ])('refuses %j as BAD_USER_INPUT naming %s', async (variables, field, message) => {
    const error = await api.error(REPORT, variables, admin);
    expect(error).toMatchObject({ message, extensions: { code: 'BAD_USER_INPUT', field } });
  });

  it('accepts 92 days, ending on any day', async () => {
    const data = await api.data<ReportData>(
      REPORT,
      { from: '2024-01-01', to: '2024-04-01', entityType: 'banner', entityIds: ['7001'] },
      admin,
    );
    expect(data.trackingReport.nodes.map((row) => row.day)).toEqual(['2024-03-10', '2024-03-11']);
  });
});

// ---------------------------------------------------------------------------------------------------
// Large tables: 200,000 events over 100 days of 2025, in time order as the api writes them.

const BULK_EVENTS = 200_000;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

function planNodes(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(planNodes)];
}

async function plan(statement: Prisma.Sql): Promise<PlanNode[]> {
  const rows = await api.prisma.$queryRaw<{ 'QUERY PLAN': string | [{ Plan: PlanNode }] }[]>`EXPLAIN (FORMAT JSON) ${statement}`;
  const json = rows[0]?.['QUERY PLAN'];
  const root = (typeof json === 'string' ? (JSON.parse(json) as [{ Plan: PlanNode }]) : json)?.[0].Plan;
  if (root === undefined) throw new Error('no plan');
  return planNodes(root);
}

const scansOf = (nodes: PlanNode[], relation: string) =>
  nodes.filter((node) => node['Relation Name'] === relation).map((node) => `${node['Node Type']} ${node['Index Name'] ?? ''}`.trim());
const indexesUsed = (nodes: PlanNode[]) => nodes.flatMap((node) => (node['Index Name'] === undefined ? [] : [node['Index Name']]));

describe(`on ${BULK_EVENTS.toLocaleString('en')} events`, () => {
  beforeAll(async () => {
    const pool = api.platform.database.pool;
    // 50 entities, 5,000 sessions, one click in 20 events (every other click a repeat), 100 days from 2025-01-01.
    await pool.query(`
      INSERT INTO tracking_events (event_type, entity_type, entity_id, user_id, customer_group_id, is_authenticated, session_id,
                                   ip_address, user_agent, page_url, referrer_url, is_repeat, channel_id, created_at)
      SELECT CASE WHEN g % 20 = 0 THEN 'click' ELSE 'impression' END, (ARRAY['banner', 'slide', 'hero'])[1 + g % 3], 8000 + g % 50,
             NULL, NULL, false, 'bulk-' || (g % 5000), '203.0.113.1', 'bulk', '/', '', g % 40 = 0, NULL,
             timestamptz '2025-01-01 00:00:00Z' + g * interval '100 days' / ${BULK_EVENTS}
        FROM generate_series(1, ${BULK_EVENTS}) AS g`);
    // One click in ten led to a cart add five minutes later.
    await pool.query(`
      INSERT INTO tracking_attributions (tracking_event_id, attribution_type, product_id, created_at)
      SELECT id, 'cart_add', 600 + id % 7, created_at + interval '5 minutes'
        FROM tracking_events WHERE event_type = 'click' AND session_id LIKE 'bulk-%' AND id % 10 = 0`);
    // What autovacuum does soon after each block range fills (the indexes are autosummarize = on).
    await pool.query(
      "SELECT brin_summarize_new_values('tracking_events_created_at_idx'), brin_summarize_new_values('tracking_attributions_created_at_idx')",
    );
    await pool.query('ANALYZE tracking_events');
    await pool.query('ANALYZE tracking_attributions');
  });

  it('rolls a day up through the BRIN index on created_at, not a scan of the table', async () => {
    const nodes = await plan(rawDailyStats(at('2025-02-01T00:00:00Z'), at('2025-02-02T00:00:00Z')));
    const { rows } = await api.platform.database.pool.query<{ relname: string; reloptions: string[] }>(
      "SELECT relname, reloptions FROM pg_class WHERE relname IN ('tracking_events_created_at_idx', 'tracking_attributions_created_at_idx') ORDER BY relname",
    );
    expect(rows).toEqual([
      { relname: 'tracking_attributions_created_at_idx', reloptions: ['autosummarize=on'] },
      { relname: 'tracking_events_created_at_idx', reloptions: ['autosummarize=on'] },
    ]);
    expect(scansOf(nodes, 'tracking_events')).not.toContain('Seq Scan');
    expect(indexesUsed(nodes)).toContain('tracking_events_created_at_idx');
  });

  it("reads one entity's raw days through (entity_type, entity_id, created_at)", async () => {
    const nodes = await plan(rawRows('2025-01-01', '2025-04-02', { entityType: 'banner', entityIds: [8003n] }, undefined, 101));
    expect(indexesUsed(nodes)).toContain('tracking_events_entity_type_entity_id_created_at_idx');
    expect(scansOf(nodes, 'tracking_events')).not.toContain('Seq Scan');
  });

  it('serves 92 days from the rollup by its keys, and states what it costs', async () => {
    const query = { from: '2025-01-01', to: '2025-04-02', first: 1_000 };
    const now = at('2025-06-01T00:00:00Z');
    const timed = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
      const started = performance.now();
      const result = await work();
      return [result, Math.round(performance.now() - started)];
    };
    // What the report would cost without a rollup: 92 days straight from the raw rows.
    const [raw, rawMs] = await timed(() => api.prisma.$queryRaw<unknown[]>`${rawRows(query.from, query.to, {}, undefined, 1_001)}`);
    const [first, rollupMs] = await timed(() => trackingReport(api.prisma, query, now));
    const [second, readMs] = await timed(() => trackingReport(api.prisma, query, now));
    const [oneEntity, oneEntityMs] = await timed(() =>
      trackingReport(api.prisma, { ...query, entityType: 'hero', entityIds: [8001n] }, now),
    );
    expect(first).toEqual(second);
    expect(first.rows).toHaveLength(1_000);
    expect(first.hasNextPage).toBe(true);
    expect(raw).toHaveLength(1_001);
    expect(oneEntity.rows.map((row) => row.day)).toHaveLength(92);
    expect(first.rows.reduce((sum, row) => sum + row.impressions + row.clicks, 0)).toBeGreaterThan(0);

    const nodes = await plan(rolledUpRows(query.from, query.to, {}, undefined, 1_001));
    expect(scansOf(nodes, 'tracking_daily_stats')).not.toContain('Seq Scan');
    expect(indexesUsed(nodes)).toContain('tracking_daily_stats_pkey');
    expect(indexesUsed(nodes)).toContain('tracking_daily_revenue_pkey');
    const filtered = await plan(rolledUpRows(query.from, query.to, { entityType: 'hero', entityIds: [8001n] }, undefined, 1_001));
    expect(scansOf(filtered, 'tracking_daily_stats')).not.toContain('Seq Scan');

    console.log(
      `[reports] ${BULK_EVENTS} events over 100 days, 92-day report of 50 entities: raw ${rawMs} ms; ` +
        `first report (rolls 92 days up) ${rollupMs} ms; from the rollup ${readMs} ms; one entity ${oneEntityMs} ms`,
    );
  });
});
