// The worker on a real Temporal dev server and PostgreSQL: order lifecycle workflows started and
// completed per second against a trivial one-activity workflow on the same server and worker in the
// same run, the schedule-to-start latencies of their tasks, the time the stale reservation sweep
// takes for 100,000 holds, and the storefront's latency at half its maximum while that sweep runs.
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time.js';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type pg from 'pg';
import { applyMigrations, createEmitter, createLogger, loadConfig, openPlatform, outboxMetrics, workflowMetrics, type Platform } from '@shop/platform';
import { TASK_QUEUE, WORKFLOW_TYPES, workflowIds } from '@shop/domain/workflows';
import { startPostgres, startRedis, startTemporal, type ServerHandle } from '../test/infra/servers.ts';
import { liftRateLimits } from '../test/support/rate-limits.ts';
import { createActivities } from '../services/worker/src/activities/create-activities.ts';
import { startApi, stopApi } from './api-process.ts';
import { cpuSeconds } from './cpu.ts';
import { closedLoop, graphqlClient, openLoop, OPERATIONS, type PhaseResult } from './shoppers.ts';
import { median, percentile, round } from './stats.ts';
import { discoverCatalog, seedDemoCatalog } from './storefront-catalog.ts';

const WORKFLOWS = Number(process.env.BENCH_WORKFLOWS ?? 500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARM_UP = 200;
/** Workflows started and awaited at once, as many callers would. */
const IN_FLIGHT = 50;
const HISTORY_SAMPLE = 200;
const STALE_HOLDS = Number(process.env.BENCH_STALE_HOLDS ?? 100_000);
const STOREFRONT_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const STOREFRONT_CONCURRENCY = 16;
const RATIO_TARGET = 0.5;
const STOREFRONT_P95_TARGET_MS = 50;

function emit(figure: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ bench: 'worker', ...figure })}\n`);
}

function note(message: string): void {
  process.stderr.write(`[bench worker] ${message}\n`);
}

interface Shop {
  readonly productId: string;
  readonly locationId: string;
  readonly channelId: string;
}

/** One channel, location and product with stock for every order the run places. */
async function seedShop(pool: pg.Pool): Promise<Shop> {
  const { rows } = await pool.query<{ channel_id: string; location_id: string; product_id: string }>(`
    WITH channel AS (INSERT INTO channels (code, name, default_currency, updated_at) VALUES ('bench', 'Bench', 'EUR', now()) RETURNING id),
         location AS (INSERT INTO stock_locations (name, updated_at) VALUES ('bench', now()) RETURNING id),
         product AS (INSERT INTO products (sku, name, slug, price, currency, updated_at) VALUES ('bench-tee', 'Tee', 'bench-tee', 10, 'EUR', now()) RETURNING id),
         level AS (INSERT INTO stock_levels (product_id, location_id, on_hand, reserved, updated_at) SELECT product.id, location.id, 100000000, 0, now() FROM product, location)
    SELECT channel.id AS channel_id, location.id AS location_id, product.id AS product_id FROM channel, location, product`);
  const row = rows[0];
  if (row === undefined) throw new Error('the bench shop was not written');
  return { productId: row.product_id, locationId: row.location_id, channelId: row.channel_id };
}

/**
 * `count` unpaid orders whose one-unit hold ran out a minute ago, written in bulk: what a shop holds
 * after unpaid checkouts. Returns their ids.
 */
async function unpaidOrders(pool: pg.Pool, shop: Shop, count: number): Promise<string[]> {
  const { rows } = await pool.query<{ id: string }>(
    `WITH placed AS (
       INSERT INTO orders (number, channel_id, session_id, email, status, currency, subtotal, tax, shipping, discount, total,
                           billing_address, shipping_address, placed_at, updated_at)
       SELECT 'B' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 30), $1, 'bench', 'bench@example.com', 'PENDING_PAYMENT', 'EUR', 10, 0, 0, 0, 10,
              '{}', '{}', now() - interval '1 hour', now()
         FROM generate_series(1, $4::int)
       RETURNING id),
     held AS (
       INSERT INTO inventory_reservations (product_id, location_id, order_id, quantity, state, expires_at, updated_at)
       SELECT $2, $3, id, 1, 'HELD', now() - interval '1 minute', now() FROM placed),
     reserved AS (UPDATE stock_levels SET reserved = reserved + $4 WHERE product_id = $2 AND location_id = $3)
     SELECT id FROM placed ORDER BY id`,
    [shop.channelId, shop.productId, shop.locationId, count],
  );
  return rows.map((row) => row.id);
}

/** Runs `start` for each item with at most IN_FLIGHT at once; counts what failed rather than dropping it silently. */
async function inFlight<T>(items: readonly T[], start: (item: T) => Promise<unknown>): Promise<{ failed: number; firstError?: string }> {
  let next = 0;
  let failed = 0;
  let firstError: string | undefined;
  const lane = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      try {
        await start(item);
      } catch (error) {
        failed += 1;
        firstError ??= error instanceof Error ? error.message : String(error);
      }
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  return { failed, firstError };
}

interface Phase {
  readonly workflowsPerSecond: number;
  readonly completed: number;
  readonly failed: number;
  /** CPU milliseconds per completed workflow, per process. */
  readonly cpuMsPerWorkflow: Record<string, number>;
}

async function timedPhase(pids: Record<string, number | undefined>, count: number, run: () => Promise<{ failed: number; firstError?: string }>): Promise<Phase> {
  const before = await cpuSeconds(pids);
  const started = performance.now();
  const { failed, firstError } = await run();
  const seconds = (performance.now() - started) / 1000;
  const after = await cpuSeconds(pids);
  if (firstError !== undefined) note(`first failure: ${firstError}`);
  const completed = count - failed;
  const cpuMsPerWorkflow = Object.fromEntries(Object.keys(after).map((name) => [name, round((((after[name] ?? 0) - (before[name] ?? 0)) * 1000) / Math.max(completed, 1))]));
  return { workflowsPerSecond: round(completed / seconds), completed, failed, cpuMsPerWorkflow };
}

/** Task waits (scheduled → started) from workflow histories: how long tasks sat on the queue. */
async function scheduleToStart(client: Client, workflowIdsSample: readonly string[]): Promise<{ workflowTaskMs: number[]; activityTaskMs: number[] }> {
  const workflowTaskMs: number[] = [];
  const activityTaskMs: number[] = [];
  for (const workflowId of workflowIdsSample) {
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    const scheduledAt = new Map<string, number>();
    for (const event of history.events ?? []) {
      const at = event.eventTime ? tsToMs(event.eventTime) : 0;
      const id = String(event.eventId);
      if (event.workflowTaskScheduledEventAttributes || event.activityTaskScheduledEventAttributes) scheduledAt.set(id, at);
      const workflowStarted = event.workflowTaskStartedEventAttributes?.scheduledEventId;
      const activityStarted = event.activityTaskStartedEventAttributes?.scheduledEventId;
      if (workflowStarted != null) workflowTaskMs.push(at - (scheduledAt.get(String(workflowStarted)) ?? at));
      if (activityStarted != null) activityTaskMs.push(at - (scheduledAt.get(String(activityStarted)) ?? at));
    }
  }
  return { workflowTaskMs: workflowTaskMs.sort((a, b) => a - b), activityTaskMs: activityTaskMs.sort((a, b) => a - b) };
}

async function throughput(client: Client, pool: pg.Pool, shop: Shop, pids: Record<string, number | undefined>): Promise<void> {
  let trivialRuns = 0;
  const trivial = (count: number) =>
    inFlight(Array.from({ length: count }, () => `trivial-${++trivialRuns}`), (workflowId) =>
      client.workflow.execute('TrivialWorkflow', { workflowId, taskQueue: TASK_QUEUE, args: [] }),
    );
  const lifecycles = (orderIds: readonly string[]) =>
    inFlight(orderIds, async (orderId) => {
      const result = await client.workflow.execute(WORKFLOW_TYPES.orderLifecycle, { workflowId: workflowIds.orderLifecycle(orderId), taskQueue: TASK_QUEUE, args: [{ orderId }] });
      if ((result as { status?: string }).status !== 'CANCELLED') throw new Error(`order ${orderId} ended ${JSON.stringify(result)}`);
    });

  await trivial(WARM_UP);
  await lifecycles(await unpaidOrders(pool, shop, WARM_UP));
  const ratios: number[] = [];
  let lastLifecycleIds: string[] = [];
  for (let round_ = 1; round_ <= ROUNDS; round_ += 1) {
    const baseline = await timedPhase(pids, WORKFLOWS, () => trivial(WORKFLOWS));
    const orderIds = await unpaidOrders(pool, shop, WORKFLOWS);
    const lifecycle = await timedPhase(pids, WORKFLOWS, () => lifecycles(orderIds));
    lastLifecycleIds = orderIds;
    const ratio = round(lifecycle.workflowsPerSecond / baseline.workflowsPerSecond);
    ratios.push(ratio);
    emit({ figure: 'trivial workflow (1 no-op activity)', round: round_, ...baseline, });
    emit({
      figure: 'OrderLifecycleWorkflow (3 activities: read, expire, read; each a transaction)',
      round: round_,
      ...lifecycle,
      ratio_to_trivial: ratio,
    });
  }
  const ratio = median(ratios);
  emit({ figure: 'lifecycle ÷ trivial, median round', ratio, rounds: ratios, goal: RATIO_TARGET, met: ratio >= RATIO_TARGET });

  const sample = lastLifecycleIds.slice(0, HISTORY_SAMPLE).map((orderId) => workflowIds.orderLifecycle(orderId));
  const waits = await scheduleToStart(client, sample);
  emit({
    figure: 'schedule-to-start under that load (from histories)',
    workflows_sampled: sample.length,
    workflow_task_p50_ms: percentile(waits.workflowTaskMs, 50),
    workflow_task_p99_ms: percentile(waits.workflowTaskMs, 99),
    activity_task_p50_ms: percentile(waits.activityTaskMs, 50),
    activity_task_p99_ms: percentile(waits.activityTaskMs, 99),
  });
}

async function countRows(pool: pg.Pool, sql: string, values: unknown[] = []): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(sql, values);
  return rows[0]?.n ?? 0;
}

/** Runs the sweep once, as its schedule would, over `STALE_HOLDS` stale holds; checks every one was released. */
async function sweep(client: Client, pool: pg.Pool, shop: Shop, pids: Record<string, number | undefined>, label: string): Promise<number> {
  await unpaidOrders(pool, shop, STALE_HOLDS);
  const outboxBefore = await countRows(pool, 'SELECT count(*)::int AS n FROM outbox_events');
  const before = await cpuSeconds(pids);
  const started = performance.now();
  await client.workflow.execute(WORKFLOW_TYPES.expireStaleReservations, { workflowId: `bench-sweep-${label}`, taskQueue: TASK_QUEUE, args: [] });
  const seconds = (performance.now() - started) / 1000;
  const after = await cpuSeconds(pids);
  const stillHeld = await countRows(pool, "SELECT count(*)::int AS n FROM inventory_reservations WHERE state = 'HELD' AND expires_at <= now()");
  const reserved = await countRows(pool, 'SELECT reserved AS n FROM stock_levels WHERE product_id = $1 AND location_id = $2', [shop.productId, shop.locationId]);
  const outboxRows = (await countRows(pool, 'SELECT count(*)::int AS n FROM outbox_events')) - outboxBefore;
  const cpuSecondsByProcess = Object.fromEntries(Object.keys(after).map((name) => [name, round((after[name] ?? 0) - (before[name] ?? 0))]));
  emit({
    figure: `ExpireStaleReservationsWorkflow over ${STALE_HOLDS} stale holds (${label})`,
    seconds: round(seconds),
    holds_per_second: Math.round(STALE_HOLDS / seconds),
    outbox_rows_written: outboxRows,
    cpu_seconds: cpuSecondsByProcess,
    left_held: stillHeld,
    reserved_left: reserved,
    complete: stillHeld === 0 && reserved === 0,
  });
  return seconds;
}

function storefrontFigure(label: string, result: PhaseResult, extra: Record<string, unknown> = {}): void {
  emit({
    figure: `storefront open loop ${label}`,
    req_per_s: round(result.reqPerSec),
    requests: result.requests,
    errors: result.errors,
    p95_ms: result.all.p95Ms,
    p99_ms: result.all.p99Ms,
    p95_ms_by_operation: Object.fromEntries(OPERATIONS.map((operation) => [operation, result.byOperation[operation].p95Ms])),
    send_lag_p99_ms: result.sendLag?.p99Ms,
    goal_p95_ms: STOREFRONT_P95_TARGET_MS,
    met: result.errors === 0 && OPERATIONS.every((operation) => result.byOperation[operation].p95Ms < STOREFRONT_P95_TARGET_MS),
    ...extra,
  });
}

async function storefrontDuringSweep(client: Client, platform: Platform, shop: Shop, pids: Record<string, number | undefined>, redisUrl: string, workDir: string): Promise<void> {
  const databaseUrl = platform.config.databaseUrl ?? '';
  await liftRateLimits(databaseUrl);
  await seedDemoCatalog(databaseUrl);
  // No WORKFLOW_HOST: its outbox listeners would start a lifecycle workflow for each of the 100,000
  // cancellations. Without one it runs its own sweep each minute; its metrics say what it took.
  const api = await startApi(workDir, databaseUrl, redisUrl);
  try {
    const catalog = await discoverCatalog(api.url);
    const shoppers = graphqlClient(api.url);
    const maximum = await closedLoop(shoppers, catalog, STOREFRONT_CONCURRENCY, STOREFRONT_SECONDS);
    const rate = Math.max(1, Math.floor(maximum.reqPerSec / 2));
    emit({ figure: 'storefront closed loop (its maximum here)', concurrency: STOREFRONT_CONCURRENCY, req_per_s: round(maximum.reqPerSec), errors: maximum.errors });
    storefrontFigure('at half the maximum, no sweep', await openLoop(shoppers, catalog, rate, STOREFRONT_SECONDS));

    const sweeping = sweep(client, platform.database.pool, shop, { ...pids, api: api.service.child.pid }, 'during the storefront load');
    // Arrivals until the sweep ends (at least one open-loop window), then the last window's figures.
    let during: PhaseResult | undefined;
    let done = false;
    void sweeping.finally(() => (done = true));
    do during = await openLoop(shoppers, catalog, rate, STOREFRONT_SECONDS, 3);
    while (!done);
    await sweeping;
    storefrontFigure('at half the maximum, while the sweep runs', during, { rate_per_s: rate });
    const metrics = await (await fetch(`${api.url}/metrics`)).text();
    const byApi = /workflow_sweep_rows_total\{sweep="ExpireStaleReservationsWorkflow",what="reservations",service="api"\} (\d+)/.exec(metrics)?.[1] ?? '0';
    const backlog = await countRows(platform.database.pool, "SELECT count(*)::int AS n FROM outbox_events WHERE dispatched_at IS NULL AND published_at IS NULL");
    emit({ figure: 'after the sweep under load', holds_the_api_swept_itself: Number(byApi), outbox_backlog_left: backlog });
  } finally {
    await stopApi(api.service);
  }
}

export async function benchWorker(): Promise<void> {
  const workDir = await mkdtemp(path.join(tmpdir(), 'shop-bench-worker-'));
  const servers: ServerHandle[] = [];
  let platform: Platform | undefined;
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  let connection: Connection | undefined;
  let nativeConnection: NativeConnection | undefined;
  try {
    const [postgres, redis, temporal] = await Promise.all([startPostgres(), startRedis(), startTemporal()]);
    servers.push(postgres, redis, temporal);
    await applyMigrations(postgres.url);
    const logger = createLogger({ level: 'ERROR', service: 'bench' });
    platform = await openPlatform(loadConfig({ NODE_ENV: 'test', DATABASE_URL: postgres.url, DATABASE_POOL_MAX: '20', EVENT_SCHEMA_MODE: 'warn' }), logger, 'bench');
    const opened = platform;
    const shop = await seedShop(opened.database.pool);

    Runtime.install({ logger: new DefaultLogger('ERROR'), shutdownSignals: [] });
    nativeConnection = await NativeConnection.connect({ address: temporal.url });
    connection = await Connection.connect({ address: temporal.url });
    const client = new Client({ connection });
    const emitter = createEmitter({ mode: 'warn', logger, metrics: outboxMetrics(opened.metrics, opened.database.pool) });
    const activities = createActivities({
      transaction: (work, options) => emitter.transaction(opened.database.prisma, work, options),
      deps: { emit: emitter.emit, now: () => new Date() },
      metrics: workflowMetrics(opened.metrics),
    });
    const workflowsPath = fileURLToPath(new URL('./workflows/index.ts', import.meta.url));
    worker = await Worker.create({
      connection: nativeConnection,
      taskQueue: TASK_QUEUE,
      workflowBundle: await bundleWorkflowCode({ workflowsPath, logger: new DefaultLogger('WARN') }),
      activities: { ...activities, noop: async () => undefined },
    });
    running = worker.run();
    emit({ figure: 'setup', cores: availableParallelism(), load_average_1m: round(loadavg()[0] ?? 0, 1), node: process.version, worker: 'in the bench process, one worker', workflows_per_round: WORKFLOWS, rounds: ROUNDS, in_flight: IN_FLIGHT });

    // CPU per process: `client` is this one (the worker and the workflow client), `machine` every core's.
    const pids = { postgres: postgres.pid(), temporal: temporal.pid() };
    await throughput(client, opened.database.pool, shop, pids);
    await sweep(client, opened.database.pool, shop, pids, 'alone');
    await storefrontDuringSweep(client, opened, shop, pids, redis.url, workDir);
  } finally {
    if (worker?.getState() === 'RUNNING') worker.shutdown();
    await running?.catch(() => undefined);
    await connection?.close();
    await nativeConnection?.close();
    await platform?.close();
    await Promise.all(servers.map((server) => server.dispose()));
    await rm(workDir, { recursive: true, force: true });
  }
}
