import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import type pg from 'pg';
import { applyMigrations, createLogger, loadConfig, openPlatform, startOutbox, type Platform } from '@shop/platform';
import { startKafka, startPostgres } from '../test/infra/servers.ts';
import { examplePayload } from '../services/platform/src/outbox/outbox-test-support.ts';

const TOPIC = 'shop.leads.created.v1';
const EVENTS = Number(process.env.BENCH_EVENTS ?? 20_000);
const RATE_PER_SECOND = 1_000;
const LATENCY_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const RELAY_TARGET = 0.5;
const P99_TARGET_MS = 200;

function emit(figure: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ bench: 'outbox', ...figure })}\n`);
}

const payload = (leadId: number) => examplePayload(TOPIC, { event_id: randomUUID(), lead_id: String(leadId) });

/** The baseline: the same messages sent by a bare idempotent kafkajs producer in batches of 500. */
async function rawProducerRate(brokers: string): Promise<number> {
  const producer = new Kafka({ clientId: 'bench', brokers: [brokers], logLevel: logLevel.NOTHING }).producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  await producer.send({ acks: -1, topic: `${TOPIC}.raw`, messages: [{ value: 'warm-up: the topic exists before the clock starts' }] });
  const started = performance.now();
  for (let sent = 0; sent < EVENTS; sent += 500) {
    const messages = Array.from({ length: 500 }, (_, i) => {
      const value = payload(sent + i);
      return { key: value.lead_id, value: JSON.stringify(value), headers: { 'event-id': value.event_id } };
    });
    await producer.sendBatch({ acks: -1, topicMessages: [{ topic: `${TOPIC}.raw`, messages }] });
  }
  const rate = EVENTS / ((performance.now() - started) / 1000);
  await producer.disconnect();
  return rate;
}

async function waitUntilPublished(pool: pg.Pool): Promise<void> {
  for (;;) {
    const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox_events WHERE published_at IS NULL');
    if (rows[0]?.n === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Concurrent business transactions, as an api under load runs them, each emitting this many events. */
const CONCURRENT_TRANSACTIONS = 8;
const EVENTS_PER_TRANSACTION = 10;

/** Emit as fast as concurrent transactions allow while the relay runs: events per second to acknowledgement. */
async function relayRate(platform: Platform): Promise<number> {
  const outbox = startOutbox(platform);
  // Connected and the topics in place before the clock starts, as the baseline's producer is.
  await outbox.transaction((tx) => outbox.emit(tx, TOPIC, payload(EVENTS)));
  await waitUntilPublished(platform.database.pool);
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < EVENTS) {
      const first = next;
      next += EVENTS_PER_TRANSACTION;
      await outbox.transaction(async (tx) => {
        for (let i = 0; i < EVENTS_PER_TRANSACTION; i += 1) await outbox.emit(tx, TOPIC, payload(first + i));
      });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENT_TRANSACTIONS }, worker));
  await waitUntilPublished(platform.database.pool);
  const rate = EVENTS / ((performance.now() - started) / 1000);
  await outbox.stop();
  return rate;
}

/** The relay alone: a backlog of EVENTS rows, written in one statement, drained to Kafka acknowledgement. */
async function relayDrainRate(platform: Platform): Promise<number> {
  const pool = platform.database.pool;
  await pool.query('TRUNCATE outbox_events CASCADE');
  const payloads = Array.from({ length: EVENTS }, (_, i) => payload(i));
  await pool.query(
    `INSERT INTO outbox_events (event_id, name, partition_key, payload)
     SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::jsonb[])`,
    [payloads.map((p) => p.event_id), payloads.map(() => TOPIC), payloads.map((p) => p.lead_id), payloads.map((p) => JSON.stringify(p))],
  );
  const started = performance.now();
  const outbox = startOutbox(platform);
  await waitUntilPublished(pool);
  const rate = EVENTS / ((performance.now() - started) / 1000);
  await outbox.stop();
  return rate;
}

/** A steady 1,000 events/s, ten per transaction every 10 ms; latency from commit to Kafka acknowledgement. */
async function latencyAtSteadyRate(platform: Platform): Promise<{ p50: number; p99: number }> {
  const pool = platform.database.pool;
  await pool.query('TRUNCATE outbox_events CASCADE');
  const outbox = startOutbox(platform);
  const perTick = RATE_PER_SECOND / 100;
  const ticks = LATENCY_SECONDS * 100;
  const started = performance.now();
  for (let tick = 0; tick < ticks; tick += 1) {
    await outbox.transaction(async (tx) => {
      for (let i = 0; i < perTick; i += 1) await outbox.emit(tx, TOPIC, payload(tick * perTick + i));
    });
    const due = started + (tick + 1) * 10;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  await waitUntilPublished(pool);
  await outbox.stop();
  const { rows } = await pool.query<{ p50: number; p99: number }>(`
    SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS p50, percentile_cont(0.99) WITHIN GROUP (ORDER BY ms) AS p99
      FROM (SELECT extract(epoch FROM published_at - created_at) * 1000 AS ms FROM outbox_events) AS latencies`);
  return { p50: Math.round(rows[0]?.p50 ?? 0), p99: Math.round(rows[0]?.p99 ?? 0) };
}

export async function benchOutbox(): Promise<void> {
  const [postgres, kafka] = await Promise.all([startPostgres(), startKafka()]);
  let platform: Platform | undefined;
  try {
    await applyMigrations(postgres.url);
    const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: postgres.url, BROKER_ADDRESS: kafka.url });
    platform = await openPlatform(config, createLogger({ level: 'ERROR', service: 'bench' }), 'bench');

    const raw = await rawProducerRate(kafka.url);
    emit({ target: 'raw kafkajs producer', events_per_s: Math.round(raw), ratio_to_raw: 1 });
    const relay = await relayRate(platform);
    const ratio = Math.round((relay / raw) * 100) / 100;
    emit({ target: 'emit -> relay -> kafka ack', events_per_s: Math.round(relay), ratio_to_raw: ratio, goal_ratio: RELAY_TARGET, meets_goal: ratio >= RELAY_TARGET });
    const drain = await relayDrainRate(platform);
    emit({ target: 'relay alone: backlog -> kafka ack', events_per_s: Math.round(drain), ratio_to_raw: Math.round((drain / raw) * 100) / 100 });
    const latency = await latencyAtSteadyRate(platform);
    emit({
      target: `emit-to-publish latency at ${RATE_PER_SECOND} events/s`,
      p50_ms: latency.p50,
      p99_ms: latency.p99,
      goal_p99_ms: P99_TARGET_MS,
      meets_goal: latency.p99 < P99_TARGET_MS,
    });
  } finally {
    await platform?.close();
    await Promise.all([postgres.dispose(), kafka.dispose()]);
  }
}
