import Fastify, { type FastifyInstance } from 'fastify';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger, type Platform } from '@shop/platform';
import { insertTrackingEvents, type TrackingEventRecord } from '@shop/domain/tracking';
import { openTestPlatform, type TestPlatform } from '../../../../test/support/test-platform.ts';
import { EventBuffer, type EventBufferSettings } from '../../src/tracking/event-buffer.ts';
import { trackingMetrics, type TrackingMetrics } from '../../src/tracking/tracking-metrics.ts';
import { trackingRoutes, type TrackingEndpoint } from '../../src/tracking/routes.ts';
import { answerErrorsAsJson } from '../../src/http/errors.ts';
import { newEntityId, newSession, storedEvents, track } from '../support/tracking.ts';

let test: TestPlatform;
let platform: Platform;

beforeAll(async () => {
  test = await openTestPlatform('track_buffer');
  platform = test.platform;
});

afterAll(async () => {
  await test?.close();
});

const pool = () => platform.database.pool;
const logger = createLogger({ level: 'ERROR', service: 'test' });

function row(sessionId: string, overrides: Partial<TrackingEventRecord> = {}): TrackingEventRecord {
  return {
    eventType: 'impression',
    entityType: 'banner',
    entityId: 1n,
    userId: null,
    customerGroupId: null,
    isAuthenticated: false,
    sessionId,
    ipAddress: '203.0.113.1',
    userAgent: '',
    pageUrl: '/',
    referrerUrl: '',
    isRepeat: false,
    channelId: null,
    createdAt: new Date(),
    ...overrides,
  };
}

interface Harness {
  readonly buffer: EventBuffer<TrackingEventRecord>;
  readonly metrics: TrackingMetrics;
  readonly registry: Registry;
  /** Sizes of the INSERTs that succeeded, with when each finished. */
  readonly writes: { size: number; at: number }[];
  /** Makes the next writes fail (with this SQLSTATE) until it is called with undefined. */
  failWith(code: string | undefined): void;
  /** How many writes failWith has failed so far. */
  failedWrites(): number;
  /** Holds writes until the returned function is called. */
  hold(): () => void;
}

function harness(settings: Partial<EventBufferSettings>): Harness {
  const registry = new Registry();
  const metrics = trackingMetrics(registry);
  const writes: { size: number; at: number }[] = [];
  let failure: string | undefined;
  let failed = 0;
  let gate: Promise<void> | undefined;
  const buffer = new EventBuffer<TrackingEventRecord>({
    write: async (rows) => {
      await gate;
      if (failure !== undefined) {
        failed += 1;
        throw Object.assign(new Error(`simulated ${failure}`), { code: failure });
      }
      await insertTrackingEvents(pool(), rows);
      writes.push({ size: rows.length, at: Date.now() });
    },
    isRefusal: (error) => /^2[23]/.test(String((error as { code?: unknown }).code)),
    settings,
    metrics,
    logger,
  });
  return {
    buffer,
    metrics,
    registry,
    writes,
    failWith: (code) => void (failure = code),
    failedWrites: () => failed,
    hold: () => {
      let open = () => {};
      gate = new Promise<void>((resolve) => (open = resolve));
      return () => {
        gate = undefined;
        open();
      };
    },
  };
}

function queue(buffer: EventBuffer<TrackingEventRecord>, rows: TrackingEventRecord[]): void {
  const admission = buffer.admit(rows.length);
  if (!admission.ok) throw new Error(`not admitted: ${admission.reason}`);
  admission.reservation.commit(rows);
}

async function sample(registry: Registry, name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((candidate) => candidate.name === name);
  const values = (metric?.values ?? []) as { value: number; labels: Record<string, string | number>; metricName?: string }[];
  const match = values.find(
    (value) => (value.metricName ?? name) === name && Object.entries(labels).every(([key, wanted]) => value.labels[key] === wanted),
  );
  return match?.value ?? 0;
}

describe('EventBuffer writes in batches', () => {
  it('writes a full batch at once, in one INSERT, without waiting for the interval', async () => {
    const { buffer, writes } = harness({ batchSize: 5, flushIntervalMs: 60_000 });
    const session = newSession();
    queue(
      buffer,
      Array.from({ length: 5 }, () => row(session)),
    );
    await expect.poll(() => writes.length, { timeout: 3_000 }).toBe(1);
    expect(writes.map((write) => write.size)).toEqual([5]);
    expect(await storedEvents(pool(), session, 5)).toHaveLength(5);
    await buffer.close();
  });

  it('writes a partial batch once its oldest event has waited the interval, in one INSERT', async () => {
    // The buffer's timer and clock are faked, so the interval is counted exactly; the INSERT runs on the real database.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      const { buffer, writes } = harness({ batchSize: 100, flushIntervalMs: 150 });
      const session = newSession();
      const started = Date.now();
      queue(buffer, [row(session), row(session)]);
      await vi.advanceTimersByTimeAsync(50);
      queue(buffer, [row(session)]);
      await vi.advanceTimersByTimeAsync(99);
      expect(writes).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      await expect.poll(() => writes.length, { timeout: 3_000 }).toBe(1);
      // The faked clock stands still while the INSERT runs: the write is stamped at the flush.
      expect(writes).toEqual([{ size: 3, at: started + 150 }]);
      expect(buffer.size).toBe(0);
      await buffer.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('splits a backlog into INSERTs of at most batchSize rows', async () => {
    const { buffer, writes } = harness({ batchSize: 4, flushIntervalMs: 60_000 });
    const session = newSession();
    for (let index = 0; index < 10; index += 1) queue(buffer, [row(session)]);
    await buffer.flush();
    expect(writes.map((write) => write.size).reduce((sum, size) => sum + size, 0)).toBe(10);
    expect(Math.max(...writes.map((write) => write.size))).toBeLessThanOrEqual(4);
    await buffer.close();
  });
});

describe('EventBuffer is bounded', () => {
  it('refuses beyond its capacity (queued, being written and reserved events all count) and admits again once written', async () => {
    const { buffer, hold, writes } = harness({ capacity: 3, batchSize: 1, flushIntervalMs: 10 });
    const release = hold();
    const session = newSession();
    queue(buffer, [row(session), row(session)]);
    const reserved = buffer.admit(1);
    expect(reserved.ok).toBe(true);
    const refused = buffer.admit(1);
    expect(refused).toEqual({ ok: false, reason: 'buffer_full', retryAfterSeconds: 1 });
    if (reserved.ok) reserved.reservation.release();
    const again = buffer.admit(1); // the released room is free again
    expect(again.ok).toBe(true);
    if (again.ok) again.reservation.commit([row(session)]);
    release();
    await expect.poll(() => writes.length, { timeout: 3_000 }).toBe(3);
    await buffer.close();
  });

  it('answers 503 with Retry-After when the buffer is full, and stores nothing of that request', async () => {
    const registry = new Registry();
    const app: FastifyInstance = Fastify();
    answerErrorsAsJson(app);
    let open = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const endpoint: TrackingEndpoint = trackingRoutes(
      app,
      { ...platform, metrics: registry },
      {
        buffer: { capacity: 2, batchSize: 10, flushIntervalMs: 10 },
        write: async (rows) => {
          await gate;
          await insertTrackingEvents(pool(), rows);
        },
      },
    );
    const event = () => ({ event_type: 'impression', entity_type: 'slide', entity_id: newEntityId(), page_url: '/' });
    const [accepted, full] = [newSession('accepted'), newSession('full')];
    expect((await track(app, { session: accepted, body: [event(), event()] })).statusCode).toBe(202);
    const response = await track(app, { session: full, body: event() });
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(response.json()).toEqual({
      error: { code: 'UNAVAILABLE', message: 'too many tracking events are waiting to be written; retry later' },
    });
    expect(await sample(registry, 'tracking_events_rejected_total', { reason: 'buffer_full' })).toBe(1);

    open();
    expect(await storedEvents(pool(), accepted, 2)).toHaveLength(2);
    expect((await track(app, { session: full, body: event() })).statusCode).toBe(202);
    expect(await storedEvents(pool(), full, 1)).toHaveLength(1);

    await endpoint.buffer.close();
    const stopping = await track(app, { session: newSession(), body: event() });
    expect(stopping.statusCode).toBe(503);
    expect(stopping.json()).toMatchObject({ error: { code: 'UNAVAILABLE', message: 'the api is stopping; send the events again' } });
    expect(await sample(registry, 'tracking_events_rejected_total', { reason: 'shutting_down' })).toBe(1);
    await app.close();
  });
});

describe('EventBuffer and database failures', () => {
  it('keeps events queued while the database fails, and writes each once when it is back', async () => {
    const { buffer, failWith, failedWrites, writes, registry } = harness({ batchSize: 10, flushIntervalMs: 20, maxRetryDelayMs: 50 });
    const session = newSession();
    failWith('08006');
    queue(buffer, [row(session), row(session), row(session)]);
    // The first write and its retry have failed: the events are still queued.
    await expect.poll(failedWrites, { timeout: 3_000 }).toBeGreaterThanOrEqual(2);
    expect(writes).toEqual([]);
    expect(buffer.size).toBe(3);
    expect(await sample(registry, 'tracking_buffer_events')).toBe(3);
    failWith(undefined);
    expect(await storedEvents(pool(), session, 3)).toHaveLength(3);
    await buffer.flush(); // whatever is still queued is written now: a second copy would show
    expect(await storedEvents(pool(), session, 3)).toHaveLength(3);
    expect(await sample(registry, 'tracking_events_written_total')).toBe(3);
    expect(await sample(registry, 'tracking_events_dropped_total', { reason: 'refused_by_database' })).toBe(0);
    expect(await sample(registry, 'tracking_buffer_events')).toBe(0);
    await buffer.close();
  });

  it('drops only the rows the database refuses, and counts them', async () => {
    const { buffer, registry } = harness({ batchSize: 10, flushIntervalMs: 10 });
    const session = newSession();
    queue(buffer, [row(session, { entityId: 1n }), row(session, { eventType: 'hover' as 'click' }), row(session, { entityId: 3n })]);
    await buffer.flush();
    const stored = await storedEvents(pool(), session, 2);
    expect(stored.map((event) => event.entity_id)).toEqual(['1', '3']);
    expect(await sample(registry, 'tracking_events_dropped_total', { reason: 'refused_by_database' })).toBe(1);
    expect(await sample(registry, 'tracking_events_written_total')).toBe(2);
    await buffer.close();
  });
});

describe('EventBuffer.close (the SIGTERM path)', () => {
  it('writes everything queued before it resolves, then refuses new events', async () => {
    const { buffer } = harness({ batchSize: 500, flushIntervalMs: 60_000 });
    const session = newSession();
    queue(
      buffer,
      Array.from({ length: 7 }, () => row(session)),
    );
    await buffer.close();
    expect(await storedEvents(pool(), session, 7, 0)).toHaveLength(7);
    expect(buffer.admit(1)).toMatchObject({ ok: false, reason: 'shutting_down' });
  });

  it('waits for a request that holds room, and writes its events too', async () => {
    const { buffer } = harness({ flushIntervalMs: 60_000 });
    const session = newSession();
    const admission = buffer.admit(1);
    if (!admission.ok) throw new Error('not admitted');
    let closed = false;
    const closing = buffer.close().then(() => void (closed = true));
    // A close that did not wait for the reservation would have ended within this turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(false);
    admission.reservation.commit([row(session)]);
    await closing;
    expect(await storedEvents(pool(), session, 1, 0)).toHaveLength(1);
  });

  it('gives up after closeTimeoutMs when the database keeps failing, counting what is lost', async () => {
    const { buffer, failWith, registry } = harness({ flushIntervalMs: 20, maxRetryDelayMs: 20, closeTimeoutMs: 300 });
    failWith('57P01');
    queue(buffer, [row(newSession()), row(newSession())]);
    const started = Date.now();
    await buffer.close();
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await sample(registry, 'tracking_events_dropped_total', { reason: 'shutdown_timeout' })).toBe(2);
    expect(buffer.size).toBe(0);
  });
});
