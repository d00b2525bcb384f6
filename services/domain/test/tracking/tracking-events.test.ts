import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryCache, type Cache, type Platform } from '@shop/platform';
import { openTestPlatform, type TestPlatform } from '../../../../test/support/test-platform.ts';
import { fitText, insertTrackingEvents } from '../../src/tracking/tracking-events.ts';
import { RepeatClicks, type Click } from '../../src/tracking/repeat-clicks.ts';
import { recordEvents, sessionId, trackingEvent } from '../support/tracking.ts';

let test: TestPlatform;
let platform: Platform;

beforeAll(async () => {
  test = await openTestPlatform('tracking_events');
  platform = test.platform;
});

afterAll(async () => {
  await test?.close();
});

const query = (text: string, values?: unknown[]) => platform.database.pool.query(text, values);

describe('the tables', () => {
  it('has tracking_events with exactly the specified columns, types and lengths, and no updated_at', async () => {
    const { rows } = await query(
      `SELECT column_name, data_type, character_maximum_length AS length, is_nullable
         FROM information_schema.columns WHERE table_name = 'tracking_events' ORDER BY ordinal_position`,
    );
    expect(rows).toEqual([
      { column_name: 'id', data_type: 'bigint', length: null, is_nullable: 'NO' },
      { column_name: 'event_type', data_type: 'character varying', length: 20, is_nullable: 'NO' },
      { column_name: 'entity_type', data_type: 'character varying', length: 20, is_nullable: 'NO' },
      { column_name: 'entity_id', data_type: 'bigint', length: null, is_nullable: 'NO' },
      { column_name: 'user_id', data_type: 'bigint', length: null, is_nullable: 'YES' },
      { column_name: 'customer_group_id', data_type: 'bigint', length: null, is_nullable: 'YES' },
      { column_name: 'is_authenticated', data_type: 'boolean', length: null, is_nullable: 'NO' },
      { column_name: 'session_id', data_type: 'character varying', length: 255, is_nullable: 'NO' },
      { column_name: 'ip_address', data_type: 'character varying', length: 45, is_nullable: 'NO' },
      { column_name: 'user_agent', data_type: 'character varying', length: 500, is_nullable: 'NO' },
      { column_name: 'page_url', data_type: 'character varying', length: 500, is_nullable: 'NO' },
      { column_name: 'referrer_url', data_type: 'character varying', length: 500, is_nullable: 'NO' },
      { column_name: 'is_repeat', data_type: 'boolean', length: null, is_nullable: 'NO' },
      { column_name: 'channel_id', data_type: 'bigint', length: null, is_nullable: 'YES' },
      { column_name: 'created_at', data_type: 'timestamp with time zone', length: null, is_nullable: 'NO' },
    ]);
  });

  it("has the three indexes of tracking_events, plus the reports' BRIN index on created_at", async () => {
    const { rows } = await query(
      `SELECT indexdef FROM pg_indexes WHERE tablename = 'tracking_events' AND indexname <> 'tracking_events_pkey' ORDER BY indexname`,
    );
    expect(rows.map((row: { indexdef: string }) => row.indexdef.replace(/^.* USING /, ''))).toEqual([
      "brin (created_at) WITH (autosummarize='on')",
      'btree (entity_type, entity_id, created_at)',
      'btree (session_id, entity_type, entity_id)',
      'btree (user_id, created_at)',
    ]);
  });

  it('has tracking_attributions with the specified columns plus its id and created_at', async () => {
    const { rows } = await query(
      `SELECT column_name, data_type, character_maximum_length AS length, numeric_precision AS precision, numeric_scale AS scale, is_nullable
         FROM information_schema.columns WHERE table_name = 'tracking_attributions' ORDER BY ordinal_position`,
    );
    expect(rows.map((row: { column_name: string }) => row.column_name)).toEqual([
      'id',
      'tracking_event_id',
      'attribution_type',
      'product_id',
      'category_id',
      'brand_id',
      'order_id',
      'attributed_revenue',
      'created_at',
    ]);
    expect(rows.find((row: { column_name: string }) => row.column_name === 'attribution_type')).toMatchObject({
      length: 20,
      is_nullable: 'NO',
    });
    expect(rows.find((row: { column_name: string }) => row.column_name === 'attributed_revenue')).toMatchObject({
      data_type: 'numeric',
      precision: 13,
      scale: 3,
      is_nullable: 'YES',
    });
    const { rows: keys } = await query(
      `SELECT conname FROM pg_constraint WHERE conrelid = 'tracking_attributions'::regclass AND contype = 'f'`,
    );
    expect(keys).toEqual([{ conname: 'tracking_attributions_tracking_event_id_fkey' }]);
  });

  it('refuses an unknown event or entity type and a repeated impression', async () => {
    await expect(insertTrackingEvents(platform.database.pool, [trackingEvent({ eventType: 'hover' as 'click' })])).rejects.toThrow(
      /event_type_check/,
    );
    await expect(insertTrackingEvents(platform.database.pool, [trackingEvent({ entityType: 'popup' as 'hero' })])).rejects.toThrow(
      /entity_type_check/,
    );
    await expect(
      insertTrackingEvents(platform.database.pool, [trackingEvent({ eventType: 'impression', isRepeat: true })]),
    ).rejects.toThrow(/impression_not_repeat_check/);
  });
});

describe('insertTrackingEvents', () => {
  it('writes a batch in one statement, every field as given', async () => {
    const at = new Date('2026-11-23T10:00:00.123Z');
    const session = sessionId();
    const ids = await recordEvents(platform.database.pool, [
      trackingEvent({ sessionId: session, createdAt: at }),
      trackingEvent({
        eventType: 'impression',
        entityType: 'hero',
        entityId: 9_223_372_036_854_775_807n,
        userId: 42n,
        customerGroupId: 7n,
        isAuthenticated: true,
        sessionId: session,
        ipAddress: '2001:db8::1',
        userAgent: 'Mozilla/5.0 "quoted", {braces}',
        pageUrl: 'https://shop.example/ü?a=1&b={2}',
        referrerUrl: 'https://search.example/?q=a,b',
        channelId: 3n,
        createdAt: at,
      }),
    ]);
    expect(ids).toHaveLength(2);
    const { rows } = await query(
      `SELECT event_type, entity_type, entity_id::text, user_id::text, customer_group_id::text, is_authenticated, session_id, ip_address,
              user_agent, page_url, referrer_url, is_repeat, channel_id::text, created_at
         FROM tracking_events WHERE session_id = $1 ORDER BY id`,
      [session],
    );
    expect(rows[0]).toMatchObject({
      event_type: 'click',
      entity_type: 'banner',
      entity_id: '1',
      user_id: null,
      is_authenticated: false,
      channel_id: null,
    });
    expect(rows[1]).toEqual({
      event_type: 'impression',
      entity_type: 'hero',
      entity_id: '9223372036854775807',
      user_id: '42',
      customer_group_id: '7',
      is_authenticated: true,
      session_id: session,
      ip_address: '2001:db8::1',
      user_agent: 'Mozilla/5.0 "quoted", {braces}',
      page_url: 'https://shop.example/ü?a=1&b={2}',
      referrer_url: 'https://search.example/?q=a,b',
      is_repeat: false,
      channel_id: '3',
      created_at: at,
    });
  });

  it('decides is_repeat of the clicks marked checkEarlierClick from the clicks already written, by session or user', async () => {
    const entityId = BigInt(randomInt(1, 2 ** 40));
    const [clicked, impressed, fresh, signedIn] = [
      sessionId('clicked'),
      sessionId('impressed'),
      sessionId('fresh'),
      sessionId('signed-in'),
    ];
    await insertTrackingEvents(platform.database.pool, [
      trackingEvent({ sessionId: clicked, entityType: 'slide', entityId }),
      trackingEvent({ sessionId: impressed, entityType: 'slide', entityId, eventType: 'impression' }),
      trackingEvent({ sessionId: sessionId(), userId: 88n, isAuthenticated: true, entityType: 'slide', entityId }),
    ]);
    const check = { checkEarlierClick: true, entityType: 'slide', entityId } as const;
    await insertTrackingEvents(platform.database.pool, [
      trackingEvent({ ...check, sessionId: clicked }),
      trackingEvent({ ...check, sessionId: impressed }),
      trackingEvent({ ...check, sessionId: clicked, entityType: 'hero' }),
      trackingEvent({ ...check, sessionId: fresh }),
      trackingEvent({ ...check, sessionId: signedIn, userId: 88n, isAuthenticated: true }),
      // Not marked: stored as given, whatever was clicked before.
      trackingEvent({ sessionId: clicked, entityType: 'slide', entityId, isRepeat: false }),
      trackingEvent({ sessionId: fresh, entityType: 'slide', entityId, isRepeat: true }),
      // Impressions are never repeats, marked or not.
      trackingEvent({ ...check, sessionId: clicked, eventType: 'impression' }),
    ]);
    const { rows } = await query(
      `SELECT session_id, entity_type, event_type, is_repeat FROM tracking_events
        WHERE session_id = ANY($1) AND entity_id = $2 ORDER BY id`,
      [[clicked, impressed, fresh, signedIn], entityId.toString()],
    );
    expect(rows.slice(2).map((row: { is_repeat: boolean }) => row.is_repeat)).toEqual([
      true,
      false,
      false,
      false,
      true,
      false,
      true,
      false,
    ]);
    expect(rows.slice(2).map((row: { entity_type: string }) => row.entity_type)).toEqual([
      'slide',
      'slide',
      'hero',
      'slide',
      'slide',
      'slide',
      'slide',
      'slide',
    ]);
  });

  it('writes nothing for an empty batch', async () => {
    expect(await insertTrackingEvents(platform.database.pool, [])).toBe(0);
  });
});

describe('fitText', () => {
  it('cuts to the column length in characters, never splitting one', () => {
    expect(fitText('a'.repeat(501), 500)).toHaveLength(500);
    expect(fitText('short', 500)).toBe('short');
    const emoji = fitText('😀'.repeat(501), 500);
    expect([...emoji]).toHaveLength(500);
    expect(emoji.length).toBe(1000);
  });

  it('drops NUL characters, which PostgreSQL text cannot hold', () => {
    expect(fitText('a\u0000b', 500)).toBe('ab');
  });

  it('stores a cut 500-character URL of multi-byte characters', async () => {
    const session = sessionId();
    await insertTrackingEvents(platform.database.pool, [trackingEvent({ sessionId: session, pageUrl: fitText('ü😀'.repeat(400), 500) })]);
    const { rows } = await query('SELECT char_length(page_url) AS n FROM tracking_events WHERE session_id = $1', [session]);
    expect(rows).toEqual([{ n: 500 }]);
  });
});

describe('RepeatClicks', () => {
  const caches: [string, () => Cache][] = [
    ['Redis', () => platform.cache],
    ['in-process', () => new MemoryCache()],
  ];
  // Random: the Redis cache is shared with every other test file of the run.
  let entity = BigInt(randomInt(1, 2 ** 40)) * 1000n;
  const click = (overrides: Partial<Click> = {}): Click => ({
    entityType: 'slide',
    entityId: entity,
    sessionId: 'unset',
    userId: null,
    ...overrides,
  });

  describe.each(caches)('with the %s cache', (_name, cacheOf) => {
    const repeats = () => new RepeatClicks({ cache: cacheOf(), db: platform.database.pool });

    it('is false for the first click of a session on an entity and true after', async () => {
      entity += 1n;
      const detector = repeats();
      const session = sessionId();
      expect(await detector.isRepeat(click({ sessionId: session }))).toBe(false);
      expect(await detector.isRepeat(click({ sessionId: session }))).toBe(true);
      expect(await detector.isRepeat(click({ sessionId: session, entityId: entity + 1000n }))).toBe(false);
      expect(await detector.isRepeat(click({ sessionId: session, entityType: 'hero' }))).toBe(false);
      expect(await detector.isRepeat(click({ sessionId: sessionId() }))).toBe(false);
    });

    it('counts the same signed-in user across sessions, and each session on its own', async () => {
      entity += 1n;
      const detector = repeats();
      const [a, b, c] = [sessionId('a'), sessionId('b'), sessionId('c')];
      expect(await detector.isRepeat(click({ sessionId: a, userId: 42n }))).toBe(false);
      expect(await detector.isRepeat(click({ sessionId: b, userId: 42n }))).toBe(true);
      expect(await detector.isRepeat(click({ sessionId: b, userId: null }))).toBe(true);
      expect(await detector.isRepeat(click({ sessionId: c, userId: 43n }))).toBe(false);
      expect(await detector.isRepeat(click({ sessionId: c, userId: null }))).toBe(true);
    });

    it('lets exactly one of many concurrent first clicks be the first', async () => {
      entity += 1n;
      const detector = repeats();
      const session = sessionId();
      const sameSession = await Promise.all(Array.from({ length: 25 }, () => detector.isRepeat(click({ sessionId: session }))));
      expect(sameSession.filter((repeat) => !repeat)).toHaveLength(1);

      entity += 1n;
      const sameUser = await Promise.all(
        Array.from({ length: 25 }, () => detector.isRepeat(click({ sessionId: sessionId(), userId: 77n }))),
      );
      expect(sameUser.filter((repeat) => !repeat)).toHaveLength(1);
    });
  });

  it('asks the database when the cache has forgotten an earlier click; impressions are not clicks', async () => {
    entity += 1n;
    const session = sessionId();
    await insertTrackingEvents(platform.database.pool, [
      trackingEvent({ sessionId: session, entityType: 'slide', entityId: entity, eventType: 'impression' }),
      trackingEvent({ sessionId: sessionId(), userId: 5n, isAuthenticated: true, entityType: 'slide', entityId: entity }),
    ]);
    const detector = new RepeatClicks({ cache: new MemoryCache(), db: platform.database.pool });
    expect(await detector.isRepeat(click({ sessionId: session }))).toBe(false);
    expect(
      await new RepeatClicks({ cache: new MemoryCache(), db: platform.database.pool }).isRepeat(
        click({ sessionId: sessionId(), userId: 5n }),
      ),
    ).toBe(true);

    await insertTrackingEvents(platform.database.pool, [trackingEvent({ sessionId: session, entityType: 'slide', entityId: entity })]);
    expect(await new RepeatClicks({ cache: new MemoryCache(), db: platform.database.pool }).isRepeat(click({ sessionId: session }))).toBe(
      true,
    );
  });

  it('tells from the cache alone a repeat, or a first click the database must confirm', async () => {
    entity += 1n;
    const detector = new RepeatClicks({ cache: platform.cache, db: platform.database.pool });
    const session = sessionId();
    expect(await detector.fromCache(click({ sessionId: session }))).toEqual({ repeat: false, checkEarlierClick: true });
    expect(await detector.fromCache(click({ sessionId: session }))).toEqual({ repeat: true, checkEarlierClick: false });
    const broken = new MemoryCache();
    broken.setIfAbsent = () => Promise.reject(new Error('cache down'));
    const errors: unknown[] = [];
    const blind = new RepeatClicks({ cache: broken, db: platform.database.pool, onCacheError: (error) => errors.push(error) });
    expect(await blind.fromCache(click({ sessionId: session }))).toEqual({ repeat: false, checkEarlierClick: true });
    expect(errors).toHaveLength(1);
  });

  it('falls back to the database and reports it when the cache fails', async () => {
    entity += 1n;
    const broken = new MemoryCache();
    broken.setIfAbsent = () => Promise.reject(new Error('cache down'));
    const errors: unknown[] = [];
    const detector = new RepeatClicks({ cache: broken, db: platform.database.pool, onCacheError: (error) => errors.push(error) });
    const session = sessionId();
    expect(await detector.isRepeat(click({ sessionId: session }))).toBe(false);
    await insertTrackingEvents(platform.database.pool, [trackingEvent({ sessionId: session, entityType: 'slide', entityId: entity })]);
    expect(await detector.isRepeat(click({ sessionId: session }))).toBe(true);
    expect(errors).toHaveLength(2);
  });
});
