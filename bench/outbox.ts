import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import type pg from 'pg';
import { applyMigrations, createLogger, loadConfig, openPlatform, startOutbox, type Platform, type RunningOutbox } from '@shop/platform';
import { startKafka, startPostgres } from '../test/infra/servers.ts';
import { examplePayload } from '../services/platform/test/support/outbox.ts';
import { cpuSeconds } from './cpu.ts';
import { median, round } from './stats.ts';

const TOPIC = 'shop.leads.created.v1';
const EVENTS = Number(process.env.BENCH_EVENTS ?? 40_000);
/** Each round measures the baseline and the outbox back to back; the ratio is the median round's. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Sent or emitted before any clock starts: JIT, connections, partition leaders and topics all warm. */
const WARM_UP_EVENTS = 5_000;
const RATE_PER_SECOND = 1_000;
const LATENCY_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const RELAY_TARGET = 0.5;
const P99_TARGET_MS = 200;

function emit(figure: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ bench: 'outbox', ...figure })}\n`);
}

const payload = (leadId: number) => examplePayload(TOPIC, { event_id: randomUUID(), lead_id: String(leadId) });

/** A phase's rate, and the CPU each process spent per event: where the machine's two cores went. */
interface Phase {
  readonly eventsPerSecond: number;
  readonly cpuMicrosPerEvent: Record<string, number>;
}

type Pids = Readonly<Record<string, number | undefined>>;

async function timed(pids: Pids, events: number, work: () => Promise<void>): Promise<Phase> {
  const before = await cpuSeconds(pids);
  const started = performance.now();
  await work();
  const seconds = (performance.now() - started) / 1000;
  const after = await cpuSeconds(pids);
  const cpuMicrosPerEvent = Object.fromEntries(
    Object.keys(after).map((name) => [name, Math.round((((after[name] ?? 0) - (before[name] ?? 0)) * 1e6) / events)]),
  );
  return { eventsPerSecond: events / seconds, cpuMicrosPerEvent };
}

/** The baseline's batches: the same messages a bare idempotent kafkajs producer sends 500 at a time. */
async function sendRaw(producer: Producer, first: number, count: number): Promise<void> {
  for (let sent = 0; sent < count; sent += 500) {
    const messages = Array.from({ length: Math.min(500, count - sent) }, (_, i) => {
      const value = payload(first + sent + i);
      return { key: value.lead_id, value: JSON.stringify(value), headers: { 'event-id': value.event_id } };
    });
    await producer.sendBatch({ acks: -1, topicMessages: [{ topic: `${TOPIC}.raw`, messages }] });
  }
}

async function rawProducer(brokers: string, pids: Pids): Promise<Phase> {
  const producer = new Kafka({ clientId: 'bench', brokers: [brokers], logLevel: logLevel.NOTHING }).producer({
    idempotent: true,
    maxInFlightRequests: 1,
  });
  await producer.connect();
  try {
    await sendRaw(producer, 0, WARM_UP_EVENTS);
    return await timed(pids, EVENTS, () => sendRaw(producer, WARM_UP_EVENTS, EVENTS));
  } finally {
    await producer.disconnect();
  }
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

/** Emits `count` events from CONCURRENT_TRANSACTIONS concurrent transactions of EVENTS_PER_TRANSACTION each. */
async function emitConcurrently(outbox: RunningOutbox, first: number, count: number): Promise<void> {
  let next = first;
  const worker = async () => {
    while (next < first + count) {
      const start = next;
      next += EVENTS_PER_TRANSACTION;
      await outbox.transaction(async (tx) => {
        for (let i = 0; i < EVENTS_PER_TRANSACTION; i += 1) await outbox.emit(tx, TOPIC, payload(start + i));
      });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENT_TRANSACTIONS }, worker));
}

/**
 * Runs `measure` with the relay and dispatcher running on an empty outbox, after WARM_UP_EVENTS went
 * through them: the producer connected and the topics in place before any clock starts.
 */
async function withWarmOutbox(platform: Platform, measure: (outbox: RunningOutbox, pool: pg.Pool) => Promise<Phase>): Promise<Phase> {
  const pool = platform.database.pool;
  await pool.query('TRUNCATE outbox_events CASCADE');
  const outbox = startOutbox(platform);
  try {
    await emitConcurrently(outbox, 0, WARM_UP_EVENTS);
    await waitUntilPublished(pool);
    return await measure(outbox, pool);
  } finally {
    await outbox.stop();
  }
}

/** Emit as fast as concurrent transactions allow while the relay runs: events per second to acknowledgement. */
const emitToAck = (platform: Platform, pids: Pids): Promise<Phase> =>
  withWarmOutbox(platform, (outbox, pool) =>
    timed(pids, EVENTS, async () => {
      await emitConcurrently(outbox, WARM_UP_EVENTS, EVENTS);
      await waitUntilPublished(pool);
    }),
  );

/** The relay alone: a backlog of EVENTS rows, written in one statement, drained to Kafka acknowledgement. */
const relayDrain = (platform: Platform, pids: Pids): Promise<Phase> =>
  withWarmOutbox(platform, async (_outbox, pool) => {
    const payloads = Array.from({ length: EVENTS }, (_, i) => payload(WARM_UP_EVENTS + i));
    await pool.query(
      `INSERT INTO outbox_events (event_id, name, partition_key, payload)
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::jsonb[])`,
      [payloads.map((p) => p.event_id), payloads.map(() => TOPIC), payloads.map((p) => p.lead_id), payloads.map((p) => JSON.stringify(p))],
    );
    return timed(pids, EVENTS, () => waitUntilPublished(pool));
  });

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

/** Each process's CPU per event, averaged over the rounds. */
function averageCpu(phases: readonly Phase[]): Record<string, number> {
  const names = Object.keys(phases[0]?.cpuMicrosPerEvent ?? {});
  return Object.fromEntries(
    names.map((name) => [name, Math.round(phases.reduce((sum, phase) => sum + (phase.cpuMicrosPerEvent[name] ?? 0), 0) / phases.length)]),
  );
}

function rateFigure(target: string, phases: readonly Phase[], ratios?: readonly number[]): Record<string, unknown> {
  return {
    target,
    events_per_s: Math.round(median(phases.map((phase) => phase.eventsPerSecond))),
    events_per_s_per_round: phases.map((phase) => Math.round(phase.eventsPerSecond)),
    ...(ratios === undefined ? {} : { ratio_to_raw: round(median(ratios)), ratio_to_raw_per_round: ratios.map((ratio) => round(ratio)) }),
    // "client" is this process: the producer, or the emitters and the relay; "machine" is every process.
    cpu_us_per_event: averageCpu(phases),
  };
}

export async function benchOutbox(): Promise<void> {
  const [postgres, kafka] = await Promise.all([startPostgres(), startKafka()]);
  let platform: Platform | undefined;
  try {
    await applyMigrations(postgres.url);
    const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: postgres.url, BROKER_ADDRESS: kafka.url });
    platform = await openPlatform(config, createLogger({ level: 'ERROR', service: 'bench' }), 'bench');
    const pids = { postgres: postgres.pid(), kafka: kafka.pid() };
    emit({
      figure: 'setup',
      cores: availableParallelism(),
      events: EVENTS,
      warm_up_events: WARM_UP_EVENTS,
      rounds: ROUNDS,
      events_per_transaction: EVENTS_PER_TRANSACTION,
    });

    const raw: Phase[] = [];
    const outbox: Phase[] = [];
    const drain: Phase[] = [];
    for (let pass = 0; pass < ROUNDS; pass += 1) {
      raw.push(await rawProducer(kafka.url, pids));
      outbox.push(await emitToAck(platform, pids));
      drain.push(await relayDrain(platform, pids));
    }
    const ratios = (phases: readonly Phase[]) => phases.map((phase, i) => phase.eventsPerSecond / (raw[i] as Phase).eventsPerSecond);
    emit(rateFigure('raw kafkajs producer', raw));
    const endToEnd = rateFigure('emit -> relay -> kafka ack', outbox, ratios(outbox));
    emit({ ...endToEnd, goal_ratio: RELAY_TARGET, meets_goal: (endToEnd.ratio_to_raw as number) >= RELAY_TARGET });
    emit(rateFigure('relay alone: backlog -> kafka ack', drain, ratios(drain)));
    // What the cores allow: at the machine CPU an event costs, this is the most both cores could carry.
    const ceiling = (phases: readonly Phase[]) => Math.round((availableParallelism() * 1e6) / Math.max(1, averageCpu(phases).machine ?? 0));
    emit({
      figure: 'ceiling on this machine',
      raw_events_per_s_if_cores_were_saturated: ceiling(raw),
      outbox_events_per_s_if_cores_were_saturated: ceiling(outbox),
      ratio: round(ceiling(outbox) / ceiling(raw)),
    });

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
