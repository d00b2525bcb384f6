// The worker on a real Temporal dev server and PostgreSQL, started by the bench: OrderLifecycleWorkflow
// runs started and completed per second against a one-activity workflow on the same server and worker
// in the same run; the schedule-to-start of their tasks from their histories; the stale-hold sweep over
// 100,000 holds; and the storefront's latency at half its maximum with and without that sweep running.
// Where the time goes: each process's CPU per workflow, and what Temporal writes per workflow.
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type pg from 'pg';
import { applyMigrations, createEmitter, createLogger, loadConfig, openPlatform, outboxMetrics, type Platform } from '@shop/platform';
import { sweepPassDeps } from '@shop/domain/flows';
import { SIGNALS, TASK_QUEUE, WORKFLOW_TYPES, workflowIds } from '@shop/domain/workflows';
import { processStat } from '../test/infra/proc-stat.ts';
import { startPostgres, startRedis, startTemporal, type ServerHandle } from '../test/infra/servers.ts';
import { liftRateLimits } from '../test/support/rate-limits.ts';
import { createActivities } from '../services/worker/src/activities/create-activities.ts';
import { startBenchWorker, type BenchWorker } from './workflows/bench-worker.ts';
import { startApi, stopApi } from './api-process.ts';
import { cpuSeconds } from './cpu.ts';
import { runShoppers, type ShoppersJob, type ShoppersOutcome } from './shoppers-process.ts';
import { startServers } from './servers.ts';
import { median, percentile, round } from './stats.ts';
import { discoverCatalog, seedDemoCatalog } from './storefront-catalog.ts';
import { maximumOf, openLoopFields } from './storefront-beside.ts';

/** Workflows of each kind per round; the run stays near ten minutes at the rates the dev server reaches here. */
const WORKFLOWS = Number(process.env.BENCH_WORKFLOWS ?? 500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 100);
/** Workflows started and awaited at once, as many callers would. */
const IN_FLIGHT = 50;
const HISTORY_SAMPLE = 200;
/** A workflow not finished in this time counts as failed (Temporal times it out). */
const WORKFLOW_TIMEOUT = '5 minutes';
const STALE_HOLDS = Number(process.env.BENCH_STALE_HOLDS ?? 100_000);
const SWEEP_TIMEOUT = '20 minutes';
/** The storefront's closed-loop sweep: its best level is the maximum; while the last level still gains STILL_RISING, it doubles (up to MAX_SHOPPERS). */
const SHOPPER_LEVELS = [8, 16, 32];
const STILL_RISING = 0.05;
const MAX_SHOPPERS = 128;
const LEVEL_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** Both open-loop windows last as long as the sweep alone took (so the second lies within the sweep), within these bounds. */
const WINDOW_SECONDS = { min: 10, max: 45 };
const LOAD_SHARE = 0.5;
const DRAIN_TIMEOUT_MS = 240_000;
const RATIO_TARGET = 0.5;
const STOREFRONT_P95_TARGET_MS = 50;

type Pids = Readonly<Record<string, number | undefined>>;

function emit(figure: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ bench: 'worker', ...figure })}\n`);
}

/** Diagnostics, not figures: stderr, so stdout stays one JSON line per figure. */
function note(message: string): void {
  process.stderr.write(`[bench worker] ${message}\n`);
}

const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));

// ---- where the cores and the disk went --------------------------------------------------------------

/** cpuSeconds, plus the CPU of PostgreSQL backends that exited (the postmaster's reaped children). */
async function cpuNow(pids: Pids): Promise<Record<string, number>> {
  const totals = await cpuSeconds(pids);
  if (pids.postgres !== undefined) totals.postgres = (totals.postgres ?? 0) + ((await processStat(pids.postgres))?.reapedCpuSeconds ?? 0);
  return totals;
}

/** Bytes the process caused to be written to storage so far (/proc/<pid>/io). */
async function bytesWritten(pid: number | undefined): Promise<number> {
  if (pid === undefined) return 0;
  const text = await readFile(`/proc/${pid}/io`, 'utf8').catch(() => '');
  return Number(/^write_bytes: (\d+)/m.exec(text)?.[1] ?? 0);
}

/** ERROR lines so far in the Temporal server's log (beside its database, which its command line names): failed store operations. */
async function temporalErrors(pid: number | undefined): Promise<number> {
  if (pid === undefined) return 0;
  const args = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0');
  const database = args[args.indexOf('--db-filename') + 1];
  if (!args.includes('--db-filename') || database === undefined) return 0;
  const log = await readFile(path.join(path.dirname(database), 'server.log'), 'utf8').catch(() => '');
  return log.split('\n').filter((line) => line.includes('level=ERROR')).length;
}

interface Used {
  readonly seconds: number;
  /** CPU seconds per process: the named servers, `client` (this process: the worker, its activities, the Temporal client), `other` and `machine`. */
  readonly cpu: Record<string, number>;
  readonly temporalBytes: number;
  readonly temporalErrors: number;
}

/** Starts counting; `stop()` returns what went where since. */
async function meter(pids: Pids): Promise<{ stop(): Promise<Used> }> {
  const [cpu, bytes, errors] = await Promise.all([cpuNow(pids), bytesWritten(pids.temporal), temporalErrors(pids.temporal)]);
  const started = performance.now();
  return {
    async stop() {
      const seconds = (performance.now() - started) / 1000;
      const [after, bytesAfter, errorsAfter] = await Promise.all([
        cpuNow(pids),
        bytesWritten(pids.temporal),
        temporalErrors(pids.temporal),
      ]);
      const used = Object.fromEntries(Object.keys(after).map((name) => [name, (after[name] ?? 0) - (cpu[name] ?? 0)]));
      const ours = Object.entries(used).reduce((sum, [name, value]) => (name === 'machine' ? sum : sum + value), 0);
      return {
        seconds,
        cpu: { ...used, other: Math.max(0, (used.machine ?? 0) - ours) },
        temporalBytes: bytesAfter - bytes,
        temporalErrors: errorsAfter - errors,
      };
    },
  };
}

/** Percent of one core over the phase (the machine has cores × 100). */
const percentOfCore = (used: Used, children: Record<string, number> = {}) => {
  // Children of this process (the shoppers) are in `other` until named.
  const named = Object.values(children).reduce((sum, value) => sum + value, 0);
  const cpu = { ...used.cpu, ...children, other: Math.max(0, (used.cpu.other ?? 0) - named) };
  return Object.fromEntries(Object.entries(cpu).map(([name, value]) => [name, Math.round((value / used.seconds) * 100)]));
};

// ---- the shop's data ---------------------------------------------------------------------------------

interface Shop {
  readonly productId: string;
  readonly locationId: string;
  readonly channelId: string;
}

/** One channel, location and product (in no storefront channel) with stock for every order the run writes. */
async function seedShop(pool: pg.Pool): Promise<Shop> {
  const { rows } = await pool.query<{ channel_id: string; location_id: string; product_id: string }>(`
    WITH channel AS (INSERT INTO channels (code, name, default_currency, updated_at) VALUES ('bench', 'Bench', 'EUR', now()) RETURNING id),
         location AS (INSERT INTO stock_locations (name, updated_at) VALUES ('bench', now()) RETURNING id),
         product AS (INSERT INTO products (sku, name, slug, price, currency, updated_at) VALUES ('bench-tee', 'Bench tee', 'bench-tee', 10, 'EUR', now()) RETURNING id),
         level AS (INSERT INTO stock_levels (product_id, location_id, on_hand, reserved, updated_at) SELECT product.id, location.id, 100000000, 0, now() FROM product, location)
    SELECT channel.id AS channel_id, location.id AS location_id, product.id AS product_id FROM channel, location, product`);
  const row = rows[0];
  if (row === undefined) throw new Error('the bench shop was not written');
  return { productId: row.product_id, locationId: row.location_id, channelId: row.channel_id };
}

interface Batch {
  readonly tag: string;
  readonly first: string;
  readonly last: string;
  readonly count: number;
  readonly seconds: number;
}

let batches = 0;

/**
 * `count` unpaid orders (PENDING_PAYMENT, one line, one HELD reservation of one unit whose expiry
 * passed a minute ago) and the stock's reserved raised to match, in one statement: what unpaid
 * checkouts leave behind. Their ids run from `first` to `last`.
 */
async function unpaidOrders(pool: pg.Pool, shop: Shop, count: number): Promise<Batch> {
  batches += 1;
  const tag = `B${batches}-`;
  const started = performance.now();
  const { rows } = await pool.query<{ first: string; last: string; count: number }>(
    `WITH placed AS (
       INSERT INTO orders (number, channel_id, session_id, email, status, currency, subtotal, tax, shipping, discount, total,
                           billing_address, shipping_address, placed_at, updated_at)
       SELECT $5 || g, $1, 'bench-' || $5 || g, 'bench@example.com', 'PENDING_PAYMENT', 'EUR', 10, 0, 0, 0, 10,
              $6::jsonb, $6::jsonb, now() - interval '31 minutes', now()
         FROM generate_series(1, $4::int) AS g
       RETURNING id),
     lines AS (
       INSERT INTO order_lines (order_id, product_id, sku, product_name, category_ids, unit_price, quantity, line_total, updated_at)
       SELECT id, $2, 'bench-tee', 'Bench tee', '{}', 10, 1, 10, now() FROM placed),
     held AS (
       INSERT INTO inventory_reservations (product_id, location_id, order_id, quantity, state, expires_at, updated_at)
       SELECT $2, $3, id, 1, 'HELD', now() - interval '1 minute', now() FROM placed),
     reserved AS (UPDATE stock_levels SET reserved = reserved + $4, updated_at = now() WHERE product_id = $2 AND location_id = $3)
     SELECT min(id)::text AS first, max(id)::text AS last, count(*)::int AS count FROM placed`,
    [
      shop.channelId,
      shop.productId,
      shop.locationId,
      count,
      tag,
      JSON.stringify({ name: 'Ada Lovelace', line1: 'Main Street 1', postalCode: '10115', city: 'Berlin', countryCode: 'DE' }),
    ],
  );
  const row = rows[0];
  if (row === undefined || row.count !== count) throw new Error(`${count} unpaid orders were not written`);
  return { tag, first: row.first, last: row.last, count, seconds: (performance.now() - started) / 1000 };
}

async function orderIdsOf(pool: pg.Pool, batch: Batch): Promise<string[]> {
  const { rows } = await pool.query<{ id: string }>(
    'SELECT id::text FROM orders WHERE id BETWEEN $1 AND $2 AND number LIKE $3 ORDER BY id',
    [batch.first, batch.last, `${batch.tag}%`],
  );
  return rows.map((row) => row.id);
}

async function count(pool: pg.Pool, sql: string, values: unknown[] = []): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(sql, values);
  return Number(rows[0]?.n ?? 0);
}

// ---- workflow throughput -------------------------------------------------------------------------------

/** Runs `run` for every item, at most IN_FLIGHT at once; what failed is counted and kept, not dropped. */
async function inFlight(
  items: readonly string[],
  run: (item: string) => Promise<void>,
): Promise<{ completed: string[]; errors: string[] }> {
  const completed: string[] = [];
  const errors: string[] = [];
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const item = items[next++] as string;
      try {
        await run(item);
        completed.push(item);
      } catch (error) {
        errors.push(errorMessage(error));
      }
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  return { completed, errors };
}

interface Kind {
  readonly name: 'trivial' | 'lifecycle';
  readonly workflow: string;
  /** Writes what `count` runs need; returns their workflow ids. Not timed. */
  prepare(count: number): Promise<string[]>;
  /** Starts the workflow and waits for its result; throws when it failed, timed out or ended otherwise than expected. */
  run(workflowId: string): Promise<void>;
}

function kinds(client: Client, pool: pg.Pool, shop: Shop): { trivial: Kind; lifecycle: Kind } {
  let trivialRuns = 0;
  const lifecyclePrefix = workflowIds.orderLifecycle('');
  return {
    trivial: {
      name: 'trivial',
      workflow: 'TrivialWorkflow (one no-op activity)',
      prepare: async (n) => Array.from({ length: n }, () => `trivial-${++trivialRuns}`),
      async run(workflowId) {
        const handle = await client.workflow.start('TrivialWorkflow', {
          workflowId,
          taskQueue: TASK_QUEUE,
          workflowExecutionTimeout: WORKFLOW_TIMEOUT,
        });
        await handle.result();
      },
    },
    lifecycle: {
      name: 'lifecycle',
      workflow: 'OrderLifecycleWorkflow (an unpaid order whose hold already ran out, to CANCELLED)',
      prepare: async (n) => (await orderIdsOf(pool, await unpaidOrders(pool, shop, n))).map(workflowIds.orderLifecycle),
      async run(workflowId) {
        const orderId = workflowId.slice(lifecyclePrefix.length);
        // As the api's outbox listener starts it on the order's first order.status_changed.
        const handle = await client.workflow.signalWithStart(WORKFLOW_TYPES.orderLifecycle, {
          workflowId,
          taskQueue: TASK_QUEUE,
          args: [{ orderId }],
          signal: SIGNALS.orderStatusChanged,
          signalArgs: [{ to: 'PENDING_PAYMENT' }],
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
          workflowExecutionTimeout: WORKFLOW_TIMEOUT,
        });
        const result = (await handle.result()) as { status: string | null };
        if (result.status !== 'CANCELLED') throw new Error(`order ${orderId} ended ${JSON.stringify(result)}`);
      },
    },
  };
}

interface Phase {
  readonly kind: Kind['name'];
  readonly round: number;
  readonly completedIds: readonly string[];
  readonly failed: number;
  readonly perSecond: number;
  readonly used: Used;
}

async function phase(kind: Kind, round_: number, n: number, pids: Pids): Promise<Phase> {
  const ids = await kind.prepare(n);
  const metered = await meter(pids);
  const { completed, errors } = await inFlight(ids, kind.run);
  const used = await metered.stop();
  if (errors.length > 0) note(`${kind.name} round ${round_}: ${errors.length} failed; first: ${errors[0]}`);
  return {
    kind: kind.name,
    round: round_,
    completedIds: completed,
    failed: errors.length,
    perSecond: completed.length / used.seconds,
    used,
  };
}

/** CPU milliseconds per completed workflow, per process. */
const cpuMsPerWorkflow = (phase_: Phase) =>
  Object.fromEntries(
    Object.entries(phase_.used.cpu).map(([name, seconds]) => [name, round((seconds * 1000) / Math.max(1, phase_.completedIds.length), 1)]),
  );

function phaseFigure(kind: Kind, phase_: Phase): Record<string, unknown> {
  return {
    figure: 'workflow throughput',
    workflow: kind.workflow,
    round: phase_.round,
    workflows_per_s: round(phase_.perSecond),
    completed: phase_.completedIds.length,
    failed: phase_.failed,
    seconds: round(phase_.used.seconds, 1),
    cpu_ms_per_workflow: cpuMsPerWorkflow(phase_),
    cpu_pct_of_one_core: percentOfCore(phase_.used),
    temporal_kb_written_per_workflow: round(phase_.used.temporalBytes / 1024 / Math.max(1, phase_.completedIds.length), 1),
    temporal_log_errors: phase_.used.temporalErrors,
  };
}

// ---- histories ------------------------------------------------------------------------------------------

type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];

const eventMs = (event: HistoryEvent): number => Number(event.eventTime?.seconds ?? 0) * 1000 + (event.eventTime?.nanos ?? 0) / 1e6;

interface HistoryFacts {
  readonly workflowTaskWaitsMs: number[];
  /** The first workflow task of each run: from the shared task queue, where later ones come from the worker's sticky queue. */
  readonly firstWorkflowTaskWaitsMs: number[];
  readonly activityTaskWaitsMs: number[];
  readonly events: number;
  readonly workflowTasks: number;
  readonly activities: number;
  readonly timers: number;
}

/** Scheduled → started of every workflow and activity task in the histories: how long tasks waited on the queue. */
async function historyFacts(client: Client, sample: readonly string[]): Promise<HistoryFacts> {
  const workflowTaskWaitsMs: number[] = [];
  const firstWorkflowTaskWaitsMs: number[] = [];
  const activityTaskWaitsMs: number[] = [];
  const counts = { events: 0, workflowTasks: 0, activities: 0, timers: 0 };
  await inFlight(sample.slice(0, HISTORY_SAMPLE), async (workflowId) => {
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    const scheduledAt = new Map<string, number>();
    let first = true;
    for (const event of history.events ?? []) {
      counts.events += 1;
      const at = eventMs(event);
      if (event.workflowTaskScheduledEventAttributes) scheduledAt.set(String(event.eventId), at);
      if (event.activityTaskScheduledEventAttributes) {
        scheduledAt.set(String(event.eventId), at);
        counts.activities += 1;
      }
      if (event.timerStartedEventAttributes) counts.timers += 1;
      const workflowTask = event.workflowTaskStartedEventAttributes?.scheduledEventId;
      const activityTask = event.activityTaskStartedEventAttributes?.scheduledEventId;
      if (workflowTask != null) {
        counts.workflowTasks += 1;
        const wait = at - (scheduledAt.get(String(workflowTask)) ?? at);
        workflowTaskWaitsMs.push(wait);
        if (first) firstWorkflowTaskWaitsMs.push(wait);
        first = false;
      }
      if (activityTask != null) activityTaskWaitsMs.push(at - (scheduledAt.get(String(activityTask)) ?? at));
    }
  });
  const sorted = (values: number[]) => values.sort((a, b) => a - b);
  return {
    workflowTaskWaitsMs: sorted(workflowTaskWaitsMs),
    firstWorkflowTaskWaitsMs: sorted(firstWorkflowTaskWaitsMs),
    activityTaskWaitsMs: sorted(activityTaskWaitsMs),
    ...counts,
  };
}

async function throughput(client: Client, pool: pg.Pool, shop: Shop, pids: Pids): Promise<{ seconds: number }> {
  const started = performance.now();
  const { trivial, lifecycle } = kinds(client, pool, shop);
  await phase(trivial, 0, WARM_UP, pids);
  await phase(lifecycle, 0, WARM_UP, pids);
  const rounds: { trivial: Phase; lifecycle: Phase }[] = [];
  for (let round_ = 1; round_ <= ROUNDS; round_ += 1) {
    const baseline = await phase(trivial, round_, WORKFLOWS, pids);
    emit(phaseFigure(trivial, baseline));
    const measured = await phase(lifecycle, round_, WORKFLOWS, pids);
    emit({ ...phaseFigure(lifecycle, measured), ratio_to_trivial: round(measured.perSecond / baseline.perSecond) });
    rounds.push({ trivial: baseline, lifecycle: measured });
  }
  const ratios = rounds.map((r) => r.lifecycle.perSecond / r.trivial.perSecond);
  const ratio = median(ratios);
  emit({
    figure: 'lifecycle ÷ trivial, workflows completed per second (median round)',
    ratio: round(ratio),
    ratio_per_round: ratios.map((value) => round(value)),
    trivial_per_s: round(median(rounds.map((r) => r.trivial.perSecond))),
    lifecycle_per_s: round(median(rounds.map((r) => r.lifecycle.perSecond))),
    failed: {
      trivial: rounds.reduce((sum, r) => sum + r.trivial.failed, 0),
      lifecycle: rounds.reduce((sum, r) => sum + r.lifecycle.failed, 0),
    },
    goal_ratio: RATIO_TARGET,
    meets_goal: ratio >= RATIO_TARGET,
  });

  // Schedule-to-start, and what a run of each kind is made of, from the last round's histories.
  const last = rounds.at(-1) as { trivial: Phase; lifecycle: Phase };
  const shape: Record<string, HistoryFacts> = {};
  for (const [name, kind, phase_] of [
    ['trivial', trivial, last.trivial],
    ['lifecycle', lifecycle, last.lifecycle],
  ] as const) {
    const facts = await historyFacts(client, phase_.completedIds);
    const sampled = Math.min(HISTORY_SAMPLE, phase_.completedIds.length);
    shape[name] = facts;
    emit({
      figure: 'schedule-to-start under the throughput load (from histories)',
      workflow: kind.workflow,
      workflows_sampled: sampled,
      workflow_task_p50_ms: round(percentile(facts.workflowTaskWaitsMs, 50), 1),
      workflow_task_p99_ms: round(percentile(facts.workflowTaskWaitsMs, 99), 1),
      first_workflow_task_p50_ms: round(percentile(facts.firstWorkflowTaskWaitsMs, 50), 1),
      first_workflow_task_p99_ms: round(percentile(facts.firstWorkflowTaskWaitsMs, 99), 1),
      activity_task_p50_ms: round(percentile(facts.activityTaskWaitsMs, 50), 1),
      activity_task_p99_ms: round(percentile(facts.activityTaskWaitsMs, 99), 1),
      activities_per_workflow: round(facts.activities / Math.max(1, sampled), 2),
      workflow_tasks_per_workflow: round(facts.workflowTasks / Math.max(1, sampled), 2),
      timers_per_workflow: round(facts.timers / Math.max(1, sampled), 2),
      history_events_per_workflow: round(facts.events / Math.max(1, sampled), 1),
    });
  }

  // The cost model: what one workflow of each kind costs every process, over all rounds.
  const perWorkflow = (phases: readonly Phase[]) => {
    const done = phases.reduce((sum, p) => sum + p.completedIds.length, 0);
    const total = (pick: (used: Used) => number) => phases.reduce((sum, p) => sum + pick(p.used), 0);
    const seconds = total((used) => used.seconds);
    const cpuMs = Object.fromEntries(
      Object.keys(phases[0]?.used.cpu ?? {}).map((name) => [
        name,
        round((total((used) => used.cpu[name] ?? 0) * 1000) / Math.max(1, done), 1),
      ]),
    );
    const busy = Math.round((total((used) => used.cpu.machine ?? 0) / seconds) * 100);
    const ours = Math.round((total((used) => (used.cpu.machine ?? 0) - (used.cpu.other ?? 0)) / seconds) * 100);
    return {
      cpuMs,
      busy,
      ours,
      temporalKb: round(total((used) => used.temporalBytes) / 1024 / Math.max(1, done), 1),
      temporalErrors: total((used) => used.temporalErrors),
    };
  };
  const t = perWorkflow(rounds.map((r) => r.trivial));
  const l = perWorkflow(rounds.map((r) => r.lifecycle));
  const ratioOf = (name: string) => round((t.cpuMs[name] ?? 0) / Math.max(0.001, l.cpuMs[name] ?? 0));
  const benchOwn = (cost: typeof t) => round((cost.cpuMs.machine ?? 0) - (cost.cpuMs.other ?? 0), 1);
  emit({
    figure: 'cost model: one workflow of each kind (all rounds)',
    cpu_ms_per_workflow: { trivial: t.cpuMs, lifecycle: l.cpuMs },
    bench_processes_cpu_ms_per_workflow: { trivial: benchOwn(t), lifecycle: benchOwn(l) },
    temporal_kb_written_per_workflow: { trivial: t.temporalKb, lifecycle: l.temporalKb },
    // Store operations that timed out or failed in the server (its SQLite file has one writer at a time): retried, each a wait.
    temporal_log_errors: { trivial: t.temporalErrors, lifecycle: l.temporalErrors },
    history_events_per_workflow: {
      trivial: round((shape.trivial?.events ?? 0) / Math.max(1, Math.min(HISTORY_SAMPLE, last.trivial.completedIds.length)), 1),
      lifecycle: round((shape.lifecycle?.events ?? 0) / Math.max(1, Math.min(HISTORY_SAMPLE, last.lifecycle.completedIds.length)), 1),
    },
    // Percent of one core (the machine has cores × 100): below that, something other than CPU held the rate back.
    machine_busy_pct: { trivial: t.busy, lifecycle: l.busy, of: availableParallelism() * 100 },
    bench_processes_busy_pct: { trivial: t.ours, lifecycle: l.ours },
    // The ratio each budget allows: trivial cost ÷ lifecycle cost of that resource.
    ratio_allowed_by: {
      machine_cpu: ratioOf('machine'),
      bench_processes_cpu: round(benchOwn(t) / Math.max(0.001, benchOwn(l))),
      temporal_cpu: ratioOf('temporal'),
      temporal_writes: round(t.temporalKb / Math.max(0.001, l.temporalKb)),
    },
    ratio_measured: round(ratio),
  });
  return { seconds: (performance.now() - started) / 1000 };
}

// ---- the stale-hold sweep ---------------------------------------------------------------------------------

/** The runs of a workflow id, newest first, through each run's continuedExecutionRunId, and the activities (passes) each scheduled. */
async function runsOf(client: Client, workflowId: string): Promise<number[]> {
  const passes: number[] = [];
  let runId: string | undefined = (await client.workflow.getHandle(workflowId).describe()).runId;
  while (runId !== undefined && runId !== '') {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    passes.push((history.events ?? []).filter((event) => event.activityTaskScheduledEventAttributes).length);
    runId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
  }
  return passes;
}

/** A counter's value in a Prometheus text exposition, summed over the series with these labels. */
function counterValue(text: string, name: string, labels: Record<string, string>): number {
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (!Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`))) continue;
    total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

const SWEPT = { name: 'workflow_sweep_rows_total', labels: { sweep: WORKFLOW_TYPES.expireStaleReservations, what: 'reservations' } };

interface Sweep {
  readonly seconds: number;
  readonly complete: boolean;
  readonly used: Used;
  /** When the workflow returned, and the events not yet handed on then. */
  readonly endedAt: number;
  readonly backlogAtEnd: number;
  readonly figure: Record<string, unknown>;
}

/**
 * ExpireStaleReservationsWorkflow once, as its schedule starts it, over the batch's stale holds;
 * then, in SQL, what it released, what is still due and the stock's reserved units.
 */
async function sweep(client: Client, platform: Platform, shop: Shop, batch: Batch, pids: Pids, when: string): Promise<Sweep> {
  const pool = platform.database.pool;
  const outboxFrom = await count(pool, 'SELECT coalesce(max(id), 0)::bigint AS n FROM outbox_events');
  const sweptBefore = counterValue(await platform.metrics.metrics(), SWEPT.name, SWEPT.labels);
  const workflowId = `bench-sweep-${batch.tag}`;
  const metered = await meter(pids);
  let lastRun: unknown;
  let failure: string | undefined;
  try {
    lastRun = await client.workflow.execute(WORKFLOW_TYPES.expireStaleReservations, {
      workflowId,
      taskQueue: TASK_QUEUE,
      workflowExecutionTimeout: SWEEP_TIMEOUT,
    });
  } catch (error) {
    failure = errorMessage(error);
  }
  const used = await metered.stop();
  const endedAt = performance.now();
  const backlogAtEnd = await outboxBacklog(pool);
  const byWorker = counterValue(await platform.metrics.metrics(), SWEPT.name, SWEPT.labels) - sweptBefore;
  const range = [batch.first, batch.last];
  const { rows } = await pool.query<{ expired: number; held: number; cancelled: number }>(
    `SELECT count(*) FILTER (WHERE r.state = 'EXPIRED')::int AS expired, count(*) FILTER (WHERE r.state = 'HELD')::int AS held,
            (SELECT count(*)::int FROM orders WHERE id BETWEEN $2 AND $3 AND status = 'CANCELLED') AS cancelled
       FROM inventory_reservations r WHERE r.product_id = $1 AND r.order_id BETWEEN $2 AND $3`,
    [shop.productId, ...range],
  );
  const released = rows[0] ?? { expired: 0, held: 0, cancelled: 0 };
  const due = await count(pool, "SELECT count(*)::int AS n FROM inventory_reservations WHERE state = 'HELD' AND expires_at <= now()");
  const reserved = await count(pool, 'SELECT reserved AS n FROM stock_levels WHERE product_id = $1 AND location_id = $2', [
    shop.productId,
    shop.locationId,
  ]);
  const { rows: outbox } = await pool.query<{ status_changed: number; stock_changed: number; all_rows: number }>(
    `SELECT count(*) FILTER (WHERE name = 'order.status_changed' AND (payload->>'order_id')::bigint BETWEEN $2 AND $3)::int AS status_changed,
            count(*) FILTER (WHERE name = 'shop.inventory.stock_changed.v1' AND payload->>'product_id' = $4)::int AS stock_changed,
            count(*)::int AS all_rows
       FROM outbox_events WHERE id > $1`,
    [outboxFrom, ...range, shop.productId],
  );
  const passes = await runsOf(client, workflowId).catch(() => []);
  const complete =
    failure === undefined && due === 0 && reserved === 0 && released.expired === batch.count && released.cancelled === batch.count;
  if (!complete)
    note(
      `the sweep (${when}) did not release every hold: ${failure ?? ''} due ${due}, reserved ${reserved}, expired ${released.expired}/${batch.count}`,
    );
  return {
    seconds: used.seconds,
    complete,
    used,
    endedAt,
    backlogAtEnd,
    figure: {
      figure: 'stale-hold sweep: ExpireStaleReservationsWorkflow run once',
      when,
      stale_holds: batch.count,
      setup_s: round(batch.seconds, 1),
      seconds: round(used.seconds, 1),
      holds_per_s: Math.round(released.expired / used.seconds),
      released_in_sql: released.expired,
      orders_cancelled_in_sql: released.cancelled,
      released_by_this_worker: byWorker,
      runs: passes.length,
      passes: passes.reduce((sum, value) => sum + value, 0),
      passes_per_run: [...passes].reverse(),
      last_run_returned: lastRun,
      outbox_rows_written: {
        'order.status_changed': outbox[0]?.status_changed ?? 0,
        'shop.inventory.stock_changed.v1': outbox[0]?.stock_changed ?? 0,
        all_rows_meanwhile: outbox[0]?.all_rows ?? 0,
      },
      cpu_s: Object.fromEntries(Object.entries(used.cpu).map(([name, seconds]) => [name, round(seconds, 1)])),
      temporal_mb_written: round(used.temporalBytes / 1024 / 1024, 1),
      holds_still_due: due,
      stock_reserved_left: reserved,
      ...(failure === undefined ? {} : { failure }),
      complete,
    },
  };
}

// ---- the storefront while the sweep runs ------------------------------------------------------------------

const outboxBacklog = (pool: pg.Pool) =>
  count(pool, 'SELECT count(*)::int AS n FROM outbox_events WHERE dispatched_at IS NULL AND published_at IS NULL');

/** Waits until the api's dispatcher has handed every event on (no broker: it dispatches them itself); seconds since `since`. */
async function drain(pool: pg.Pool, since: number): Promise<{ seconds: number; left: number }> {
  let left = await outboxBacklog(pool);
  while (left > 0 && performance.now() - since < DRAIN_TIMEOUT_MS) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    left = await outboxBacklog(pool);
  }
  return { seconds: (performance.now() - since) / 1000, left };
}

/**
 * The api sweeps stale holds itself every minute (no WORKFLOW_HOST): a one-hold canary it releases
 * marks a pass; the next comes a minute later. Resolves with the time of a pass at most `freshMs` ago.
 */
async function apiSweepPass(pool: pg.Pool, shop: Shop, canary: Batch | undefined, freshMs: number): Promise<number> {
  const releasedAt = async (batch: Batch) => {
    const { rows } = await pool.query<{ at: Date }>(
      "SELECT updated_at AS at FROM inventory_reservations WHERE order_id = $1 AND state <> 'HELD'",
      [batch.first],
    );
    return rows[0]?.at.getTime();
  };
  let current = canary;
  const deadline = Date.now() + 150_000;
  while (Date.now() < deadline) {
    const at = current === undefined ? undefined : await releasedAt(current);
    if (at !== undefined && Date.now() - at <= freshMs) return at;
    if (current === undefined || at !== undefined) current = await unpaidOrders(pool, shop, 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the api did not sweep a stale hold within 150 s');
}

function storefrontFigure(
  when: string,
  outcome: ShoppersOutcome,
  used: Used,
  rate: number,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    figure: `storefront open loop at ${LOAD_SHARE * 100}% of its maximum`,
    when,
    ...openLoopFields(outcome.result, rate, STOREFRONT_P95_TARGET_MS),
    // `client` is this process (the worker and the sweep's activities); the shoppers run in their own.
    cpu_pct_of_one_core: percentOfCore(used, { shoppers: outcome.cpuSeconds }),
    ...(Object.keys(outcome.failures).length > 0 ? { first_failures: outcome.failures } : {}),
    ...extra,
  };
}

async function storefrontWhileSweeping(
  client: Client,
  platform: Platform,
  shop: Shop,
  pids: Pids,
  redisUrl: string,
  workDir: string,
  sweepAlone: Used,
): Promise<void> {
  const pool = platform.database.pool;
  const databaseUrl = platform.config.databaseUrl ?? '';
  // The events of the runs so far were nobody's to deliver (no api ran): not a backlog for the api to start with.
  const { rowCount: setAside } = await pool.query(
    'UPDATE outbox_events SET dispatched_at = now() WHERE dispatched_at IS NULL AND published_at IS NULL',
  );
  await liftRateLimits(databaseUrl);
  await seedDemoCatalog(databaseUrl);
  // No WORKFLOW_HOST: its outbox listeners would signal-with-start a lifecycle workflow for each of the
  // 100,000 cancellations the sweep writes. Without one it sweeps stale holds itself every minute.
  const api = await startApi(workDir, databaseUrl, redisUrl, { SWEEP_ROWS_PER_SECOND: String(platform.config.sweepRowsPerSecond) });
  const apiPids = { ...pids, api: api.service.child.pid };
  try {
    const canary = await unpaidOrders(pool, shop, 1);
    const catalog = await discoverCatalog(api.url);
    if (catalog.products.some((product) => product.slug === 'bench-tee'))
      throw new Error("the storefront's catalog includes the bench's product");
    const shoppers = (job: Omit<ShoppersJob, 'url' | 'catalog'>) => runShoppers({ url: api.url, catalog, ...job });
    await shoppers({ mode: 'closed', level: 16, seconds: 3, seed: 99 });

    const best = await maximumOf({ levels: SHOPPER_LEVELS, stillRising: STILL_RISING, maxLevel: MAX_SHOPPERS }, async (level) => {
      const metered = await meter(apiPids);
      const outcome = await shoppers({ mode: 'closed', level, seconds: LEVEL_SECONDS, seed: level });
      const used = await metered.stop();
      const { result } = outcome;
      emit({
        figure: 'storefront closed loop',
        shoppers: level,
        req_per_s: result.reqPerSec,
        p95_ms: result.all.p95Ms,
        errors: result.errors,
        cpu_pct_of_one_core: percentOfCore(used, { shoppers: outcome.cpuSeconds }),
      });
      return result;
    });
    const rate = Math.max(1, Math.round(best.result.reqPerSec * LOAD_SHARE));
    const window = Math.round(Math.min(WINDOW_SECONDS.max, Math.max(WINDOW_SECONDS.min, sweepAlone.seconds)));
    emit({
      figure: 'storefront setup',
      api: 'its own process, NODE_ENV=test, no broker (it dispatches its events itself), no WORKFLOW_HOST (it sweeps stale holds itself every minute)',
      maximum_req_per_s: best.result.reqPerSec,
      at_shoppers: best.level,
      offered_req_per_s: rate,
      window_s: window,
      outbox_rows_of_earlier_phases_set_aside: setAside ?? 0,
    });

    const baselineMeter = await meter(apiPids);
    const baseline = await shoppers({ mode: 'open', level: rate, seconds: window, seed: 2 });
    const baselineUsed = await baselineMeter.stop();
    emit(storefrontFigure('no sweep running', baseline, baselineUsed, rate));

    // Right after one of the api's own passes, so the next (a minute later) falls after the window.
    const apiPass = await apiSweepPass(pool, shop, canary, 10_000);
    const sweptByApiBefore = counterValue(await (await fetch(`${api.url}/metrics`)).text(), SWEPT.name, SWEPT.labels);
    const batch = await unpaidOrders(pool, shop, STALE_HOLDS);
    const sweepStarted = Date.now();
    const duringMeter = await meter(apiPids);
    const [sweepOutcome, during] = await Promise.all([
      // The drain starts when the sweep ends, the window may still run.
      sweep(client, platform, shop, batch, apiPids, 'while the storefront runs').then(async (swept) => ({
        ...swept,
        drained: await drain(pool, swept.endedAt),
      })),
      shoppers({ mode: 'open', level: rate, seconds: window, seed: 3 }).then(async (outcome) => ({
        outcome,
        used: await duringMeter.stop(),
        endedAt: Date.now(),
      })),
    ]);
    const sweepEnded = sweepStarted + sweepOutcome.seconds * 1000;
    const { drained } = sweepOutcome;
    const sweptByApi = counterValue(await (await fetch(`${api.url}/metrics`)).text(), SWEPT.name, SWEPT.labels) - sweptByApiBefore;
    emit(sweepOutcome.figure);
    emit(
      storefrontFigure('while the sweep runs', during.outcome, during.used, rate, {
        window_within_sweep: during.endedAt <= sweepEnded,
        sweep_s: round(sweepOutcome.seconds, 1),
        api_own_sweep_pass_s_before_sweep: round((sweepStarted - apiPass) / 1000, 1),
        holds_the_api_swept_itself: sweptByApi,
      }),
    );
    emit({
      figure: "the sweep's events in the api's outbox (the api dispatches them to its listeners)",
      backlog_when_the_sweep_ended: sweepOutcome.backlogAtEnd,
      drained: drained.left === 0,
      drain_s_after_the_sweep: round(drained.seconds, 1),
      ...(drained.left === 0 ? {} : { left: drained.left }),
      events_per_s: Math.round((sweepOutcome.backlogAtEnd - drained.left) / Math.max(0.1, drained.seconds)),
    });
    // Why the storefront slows: what the sweep needs of the cores, against what the storefront leaves spare.
    const cores = availableParallelism() * 100;
    const pct = (used: Used, name: string) => Math.round(((used.cpu[name] ?? 0) / used.seconds) * 100);
    const perThousand = (used: Used, name: string) => round(((used.cpu[name] ?? 0) * 1e6) / Math.max(1, batch.count), 1);
    emit({
      figure: 'cost model: the storefront and the sweep on these cores',
      cores_pct: cores,
      storefront_alone_machine_busy_pct: pct(baselineUsed, 'machine'),
      of_which_other_processes_pct: Math.max(
        0,
        pct(baselineUsed, 'other') - Math.round((baseline.cpuSeconds / baselineUsed.seconds) * 100),
      ),
      spare_pct: Math.max(0, cores - pct(baselineUsed, 'machine')),
      sweep_alone_needs_pct: pct(sweepAlone, 'machine') - Math.min(pct(sweepAlone, 'machine'), pct(sweepAlone, 'other')),
      sweep_alone_cpu_ms_per_1000_holds: {
        postgres: perThousand(sweepAlone, 'postgres'),
        worker: perThousand(sweepAlone, 'client'),
        temporal: perThousand(sweepAlone, 'temporal'),
      },
      while_sweeping_machine_busy_pct: pct(during.used, 'machine'),
    });
  } finally {
    await stopApi(api.service);
  }
}

// ---- the run --------------------------------------------------------------------------------------------

export async function benchWorker(): Promise<void> {
  const benchStarted = performance.now();
  const workDir = await mkdtemp(path.join(tmpdir(), 'shop-bench-worker-'));
  const servers: ServerHandle[] = [];
  let platform: Platform | undefined;
  let worker: BenchWorker | undefined;
  let connection: Connection | undefined;
  try {
    const [postgres, redis, temporalServer] = (await startServers(servers, [startPostgres(), startRedis(), startTemporal()])) as [
      ServerHandle,
      ServerHandle,
      ServerHandle,
    ];
    await applyMigrations(postgres.url);
    const logger = createLogger({ level: 'ERROR', service: 'bench' });
    platform = await openPlatform(
      loadConfig({
        NODE_ENV: 'test',
        DATABASE_URL: postgres.url,
        EVENT_SCHEMA_MODE: 'warn',
        SWEEP_ROWS_PER_SECOND: process.env.SWEEP_ROWS_PER_SECOND,
      }),
      logger,
      'bench',
    );
    const opened = platform;
    const shop = await seedShop(opened.database.pool);

    connection = await Connection.connect({ address: temporalServer.url });
    const client = new Client({ connection });
    const emitter = createEmitter({ mode: 'warn', logger, metrics: outboxMetrics(opened.metrics, opened.database.pool) });
    const activities = createActivities(
      sweepPassDeps(opened, {
        emit: emitter.emit,
        transaction: (work, options) => emitter.transaction(opened.database.prisma, work, options),
      }),
    );
    worker = await startBenchWorker(temporalServer.url, activities);
    const [load1, load5] = loadavg();
    emit({
      figure: 'setup',
      cores: availableParallelism(),
      load_average_1m: round(load1 ?? 0, 1),
      load_average_5m: round(load5 ?? 0, 1),
      node: process.version,
      temporal: 'the Temporal CLI dev server (test/infra startTemporal: SQLite in a file)',
      worker: 'one, in the bench process, default options; its activities on a pool of 10 database connections',
      sweep_rows_per_second: opened.config.sweepRowsPerSecond,
      workflows_per_round: WORKFLOWS,
      rounds: ROUNDS,
      warm_up_per_kind: WARM_UP,
      in_flight: IN_FLIGHT,
      started_with: {
        trivial: 'client.workflow.start',
        lifecycle: "client.workflow.signalWithStart, as the api's outbox listener starts it",
      },
    });

    // CPU per process: `client` is this one (the worker, its activities, the Temporal client); `machine` every core's.
    const pids = { postgres: postgres.pid(), temporal: temporalServer.pid() };
    await throughput(client, opened.database.pool, shop, pids);
    const alone = await sweep(client, opened, shop, await unpaidOrders(opened.database.pool, shop, STALE_HOLDS), pids, 'alone');
    emit(alone.figure);
    await storefrontWhileSweeping(client, opened, shop, pids, redis.url, workDir, alone.used);
    emit({
      figure: 'run',
      seconds: Math.round((performance.now() - benchStarted) / 1000),
      load_average_1m_at_end: round(loadavg()[0] ?? 0, 1),
    });
  } finally {
    await worker?.stop();
    await connection?.close();
    await platform?.close();
    await Promise.all(servers.map((server) => server.dispose()));
    await rm(workDir, { recursive: true, force: true });
  }
}
