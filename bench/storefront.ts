// A mixed storefront load (browse, view a product, create a cart, add to it, place the order) against
// the api as its own process on real PostgreSQL and Redis: the maximum throughput of the mix
// (closed loop), then per-operation latency at half of it (open loop, fixed arrival rate), and the
// ratio to a bare Fastify route measured in the same run. Where the time goes: each process's CPU
// per phase (/proc), and what PostgreSQL executed during the open loop (pg_stat_statements).
// Every phase starts with the outbox drained (no broker: the api dispatches events itself), so no
// phase carries the events an earlier, saturated one left behind; each reports what it left.
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { applyMigrations } from '@shop/platform';
import { processStat } from '../test/infra/proc-stat.ts';
import { startPostgres, startRedis, type ServerHandle } from '../test/infra/servers.ts';
import { liftRateLimits } from '../test/support/rate-limits.ts';
import type { ServiceProcess } from '../test/support/service-process.ts';
import { startApi, stopApi } from './api-process.ts';
import { load } from './load.ts';
import { cpuPercent, cpuSeconds } from './cpu.ts';
import { discoverCatalog, seedDemoCatalog } from './storefront-catalog.ts';
import {
  clientCeiling,
  closedLoop,
  failures,
  graphqlClient,
  openLoop,
  OPERATIONS,
  VISIT,
  type GraphqlClient,
  type PhaseResult,
} from './shoppers.ts';
import { enableStatementStats, startBare } from './servers.ts';
import { maximumOf } from './storefront-beside.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** The latency phase runs longer: placeOrder is 1 request in 19, and its p99 needs samples. */
const OPEN_SECONDS = Number(process.env.BENCH_OPEN_SECONDS ?? SECONDS * 3);
/**
 * Shoppers of the closed-loop sweep; the best throughput of them is the maximum (1: the unloaded
 * latencies). While the last level still gains, the sweep doubles it (see STILL_RISING).
 */
const CONCURRENCY = (process.env.BENCH_CONCURRENCY ?? '1,4,8,16,32,64').split(',').map(Number);
const WARM_UP_SECONDS = 3;
/** The sweep goes on doubling the shoppers while the last level still gained this share, up to MAX_SHOPPERS. */
const STILL_RISING = 0.05;
const MAX_SHOPPERS = 512;
const DRAIN_TIMEOUT_MS = 180_000;
const LOAD_SHARE = 0.5;
const P95_TARGET_MS = 50;
/** The spec's alert threshold for a storefront operation. */
const ALERT_MS = 500;
/** Stock of every demo product: orders must never run out of it during the run. */

function emit(figure: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ bench: 'storefront', ...figure })}\n`);
}

/** Diagnostics, not figures: stderr, so stdout stays one JSON line per figure. */
function note(message: string, fields: Record<string, unknown> = {}): void {
  process.stderr.write(`[bench storefront] ${message}${Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : ''}\n`);
}

interface Measured {
  readonly result: PhaseResult;
  readonly cpu: Record<string, number>;
}

/**
 * cpuSeconds, plus the CPU of PostgreSQL backends that exited (the pool closes idle connections):
 * the postmaster's cutime and cstime. Without it a phase in which backends exit shows less, even
 * negative, PostgreSQL CPU.
 */
async function cpuWithExited(pids: Record<string, number | undefined>): Promise<Record<string, number>> {
  const totals = await cpuSeconds(pids);
  if (pids.postgres === undefined) return totals;
  const reaped = (await processStat(pids.postgres))?.reapedCpuSeconds ?? 0;
  return { ...totals, postgres: (totals.postgres ?? 0) + reaped };
}

async function measured(pids: Record<string, number | undefined>, phase: () => Promise<PhaseResult>): Promise<Measured> {
  const before = await cpuWithExited(pids);
  const result = await phase();
  return { result, cpu: cpuPercent(before, await cpuWithExited(pids), result.seconds) };
}

/**
 * Percent of one core over the phase (the machine has `cores` × 100): the api, PostgreSQL with its
 * backends, Redis, this process (the shoppers), and whatever else ran on the machine meanwhile; and
 * the CPU milliseconds the api and PostgreSQL spent per request.
 */
function cpuFigure(cpu: Record<string, number>, reqPerSec: number): Record<string, number> {
  const ours = (cpu.api ?? 0) + (cpu.postgres ?? 0) + (cpu.redis ?? 0) + (cpu.client ?? 0);
  const msPerRequest = (percent = 0) => Math.round(((percent * 10) / Math.max(1, reqPerSec)) * 100) / 100;
  return {
    api_cpu_pct: cpu.api ?? 0,
    postgres_cpu_pct: cpu.postgres ?? 0,
    redis_cpu_pct: cpu.redis ?? 0,
    client_cpu_pct: cpu.client ?? 0,
    other_processes_cpu_pct: Math.max(0, (cpu.machine ?? 0) - ours),
    machine_idle_pct: Math.max(0, availableParallelism() * 100 - (cpu.machine ?? 0)),
    api_cpu_ms_per_req: msPerRequest(cpu.api),
    postgres_cpu_ms_per_req: msPerRequest(cpu.postgres),
  };
}

function emitOperations(target: string, result: PhaseResult, goal = false): boolean {
  let allMeet = true;
  for (const operation of OPERATIONS) {
    const op = result.byOperation[operation];
    const meets = op.errors === 0 && op.p95Ms < P95_TARGET_MS;
    allMeet &&= meets;
    emit({
      target,
      operation,
      requests: op.count,
      p50_ms: op.p50Ms,
      p95_ms: op.p95Ms,
      p99_ms: op.p99Ms,
      max_ms: op.maxMs,
      errors: op.errors,
      ...(goal ? { goal_p95_ms: P95_TARGET_MS, meets_goal: meets, alert_ms: ALERT_MS, p99_under_alert: op.p99Ms < ALERT_MS } : {}),
    });
  }
  return allMeet;
}

/**
 * The api's event loop delay since the last reading, from its /metrics (prom-client samples
 * monitorEventLoopDelay and restarts the histogram at every scrape): a stalled loop (GC, a
 * synchronous stretch) shows here, queueing for a database connection or a lock does not.
 */
async function eventLoopDelay(url: string): Promise<{ p99Ms: number; maxMs: number }> {
  const text = await fetch(`${url}/metrics`).then((response) => response.text());
  const seconds = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(text)?.[1] ?? Number.NaN);
  const ms = (value: number) => Math.round(value * 10_000) / 10;
  return { p99Ms: ms(seconds('nodejs_eventloop_lag_p99_seconds')), maxMs: ms(seconds('nodejs_eventloop_lag_max_seconds')) };
}

/** Events not yet handed to their listeners: with no broker the api's dispatcher works them off in the same process. */
async function outboxBacklog(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM outbox_events WHERE dispatched_at IS NULL AND published_at IS NULL',
    );
    return rows[0]?.n ?? 0;
  } finally {
    await client.end();
  }
}

/**
 * Waits until the dispatcher has caught up. A saturated phase leaves a backlog of events behind;
 * measured on top of it, the next phase would carry the previous one's deferred work.
 */
async function drainOutbox(databaseUrl: string): Promise<{ backlog: number; seconds: number }> {
  const started = performance.now();
  const backlog = await outboxBacklog(databaseUrl);
  let left = backlog;
  while (left > 0 && performance.now() - started < DRAIN_TIMEOUT_MS) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    left = await outboxBacklog(databaseUrl);
  }
  if (left > 0) throw new Error(`the outbox still holds ${left} undispatched events after ${DRAIN_TIMEOUT_MS / 1000} s`);
  return { backlog, seconds: Math.round((performance.now() - started) / 100) / 10 };
}

interface StatementStats {
  readonly calls: number;
  readonly execMs: number;
  readonly top: readonly { query: string; calls: number; ms: number }[];
  readonly mostCalled: readonly { query: string; calls: number; ms: number }[];
}

/** What PostgreSQL executed while `work` ran (every client, the api's background loops included). */
async function statementStats<T>(databaseUrl: string, work: () => Promise<T>): Promise<{ value: T; statements: StatementStats }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_stat_statements_reset()');
    const value = await work();
    const own = `query NOT LIKE '%pg_stat_statements%'`;
    const { rows: totals } = await client.query<{ calls: number; ms: number }>(
      `SELECT coalesce(sum(calls), 0)::float8 AS calls, coalesce(sum(total_exec_time), 0)::float8 AS ms FROM pg_stat_statements WHERE ${own}`,
    );
    const { rows: top } = await client.query<{ query: string; calls: number; ms: number }>(
      `SELECT regexp_replace(query, '\\s+', ' ', 'g') AS query, calls::float8 AS calls, total_exec_time::float8 AS ms
         FROM pg_stat_statements WHERE ${own} ORDER BY total_exec_time DESC LIMIT 6`,
    );
    const { rows: mostCalled } = await client.query<{ query: string; calls: number; ms: number }>(
      `SELECT regexp_replace(query, '\\s+', ' ', 'g') AS query, calls::float8 AS calls, total_exec_time::float8 AS ms
         FROM pg_stat_statements WHERE ${own} ORDER BY calls DESC LIMIT 12`,
    );
    return { value, statements: { calls: totals[0]?.calls ?? 0, execMs: totals[0]?.ms ?? 0, top, mostCalled } };
  } finally {
    await client.end();
  }
}

async function runMix(url: string, databaseUrl: string, pids: Record<string, number | undefined>, bareReqPerSec: number): Promise<void> {
  const client: GraphqlClient = graphqlClient(url);
  try {
    const catalog = await discoverCatalog(url);
    // Warm-up: JIT of Node and of every GraphQL query, the pools filled.
    await closedLoop(client, catalog, 16, WARM_UP_SECONDS, 99);
    if (failures.first.size > 0) throw new Error(`the mix fails during warm-up: ${JSON.stringify(Object.fromEntries(failures.first))}`);

    const sweep = { levels: CONCURRENCY, stillRising: STILL_RISING, maxLevel: MAX_SHOPPERS };
    const best = await maximumOf(sweep, async (concurrency) => {
      await drainOutbox(databaseUrl);
      const { result, cpu } = await measured(pids, () => closedLoop(client, catalog, concurrency, SECONDS, concurrency));
      // Events the dispatcher had not caught up with when the phase ended: work the throughput figure deferred.
      const { backlog, seconds: drainSeconds } = await drainOutbox(databaseUrl);
      emit({
        target: 'storefront mix, closed loop',
        shoppers: concurrency,
        req_per_s: result.reqPerSec,
        orders_per_s: result.ordersPerSec,
        p50_ms: result.all.p50Ms,
        p95_ms: result.all.p95Ms,
        p99_ms: result.all.p99Ms,
        errors: result.errors,
        ratio_to_bare: Math.round((result.reqPerSec / bareReqPerSec) * 1000) / 1000,
        outbox_backlog_after: backlog,
        outbox_drain_s: drainSeconds,
        ...cpuFigure(cpu, result.reqPerSec),
      });
      // One shopper: each operation's latency with nothing queued in front of it.
      if (concurrency === 1) emitOperations('storefront mix, one shopper (unloaded)', result);
      return { ...result, otherCpu: cpuFigure(cpu, result.reqPerSec).other_processes_cpu_pct ?? 0 };
    });
    const max = best.result;
    emit({
      target: 'storefront mix, maximum throughput',
      req_per_s: max.reqPerSec,
      orders_per_s: max.ordersPerSec,
      shoppers: best.level,
      ratio_to_bare: Math.round((max.reqPerSec / bareReqPerSec) * 1000) / 1000,
      mix: Object.fromEntries(OPERATIONS.map((operation) => [operation, VISIT.filter((step) => step === operation).length])),
    });
    emitOperations('storefront mix, at maximum throughput', max);

    const rate = Math.max(1, Math.round(max.reqPerSec * LOAD_SHARE));
    const target = `storefront mix, open loop at ${LOAD_SHARE * 100}% of maximum`;
    await drainOutbox(databaseUrl);
    await eventLoopDelay(url); // restarts the api's histogram: the next reading covers the open loop only
    const { value: measuredOpen, statements } = await statementStats(databaseUrl, () =>
      measured(pids, () => openLoop(client, catalog, rate, OPEN_SECONDS)),
    );
    const apiDelay = await eventLoopDelay(url);
    const openBacklog = await outboxBacklog(databaseUrl);
    const { result: open, cpu } = measuredOpen;
    const allMeet = emitOperations(target, open, true);
    emit({
      target,
      operation: 'all',
      offered_req_per_s: rate,
      achieved_req_per_s: open.reqPerSec,
      seconds: open.seconds,
      most_in_flight: open.maxInFlight,
      generator_send_lag_p99_ms: open.sendLag?.p99Ms,
      generator_send_lag_max_ms: open.sendLag?.maxMs,
      api_event_loop_delay_p99_ms: apiDelay.p99Ms,
      api_event_loop_delay_max_ms: apiDelay.maxMs,
      outbox_backlog_after: openBacklog,
      p50_ms: open.all.p50Ms,
      p95_ms: open.all.p95Ms,
      p99_ms: open.all.p99Ms,
      errors: open.errors,
      goal_p95_ms: P95_TARGET_MS,
      meets_goal: allMeet,
      ...cpuFigure(cpu, open.reqPerSec),
      // The machine is shared: a maximum measured while others took the cores is not the same "half".
      other_processes_cpu_pct_at_maximum: best.result.otherCpu,
    });
    const { calls, execMs, top, mostCalled } = statements;
    const perRequest = (row: { query: string; calls: number; ms: number }) => ({
      query: row.query.slice(0, 90),
      calls_per_request: Math.round((row.calls / Math.max(1, open.requests)) * 100) / 100,
      mean_ms: Math.round((row.ms / Math.max(1, row.calls)) * 1000) / 1000,
    });
    emit({
      figure: `database during the open loop`,
      statements_per_request: Math.round((calls / Math.max(1, open.requests)) * 10) / 10,
      exec_ms_per_request: Math.round((execMs / Math.max(1, open.requests)) * 100) / 100,
      top_by_exec_time: top.map(perRequest),
      // Every statement is a round trip and a trip through Prisma in the api: the count matters as much as the time.
      top_by_calls: mostCalled.map(perRequest),
    });
  } finally {
    client.close();
    if (failures.first.size > 0) note('first failure of each operation', Object.fromEntries(failures.first));
  }
}

export async function benchStorefront(): Promise<void> {
  const workDir = await mkdtemp(path.join(tmpdir(), 'shop-bench-'));
  let postgres: ServerHandle | undefined;
  let redis: ServerHandle | undefined;
  let bare: { url: string; stop(): void } | undefined;
  let api: ServiceProcess | undefined;
  try {
    const servers = await Promise.allSettled([startPostgres(), startRedis(), startBare()]);
    if (servers[0].status === 'fulfilled') postgres = servers[0].value;
    if (servers[1].status === 'fulfilled') redis = servers[1].value;
    if (servers[2].status === 'fulfilled') bare = servers[2].value;
    const failed = servers.find((server) => server.status === 'rejected');
    if (failed !== undefined || postgres === undefined || redis === undefined || bare === undefined) throw failed?.reason;
    await enableStatementStats(postgres);
    await applyMigrations(postgres.url);
    // The bench is one client address: the per-address limits would refuse most of its requests.
    await liftRateLimits(postgres.url);
    await seedDemoCatalog(postgres.url);
    const started = await startApi(workDir, postgres.url, redis.url);
    api = started.service;
    emit({
      figure: 'setup',
      cores: availableParallelism(),
      load_average_1m: Math.round((loadavg()[0] ?? 0) * 10) / 10,
      node: process.version,
      api_mode: 'NODE_ENV=test, no broker',
      database_pool: 10,
    });

    const baseline = await load({ url: `${bare.url}/bare`, seconds: SECONDS });
    emit({
      target: 'bare fastify route',
      req_per_s: baseline.okPerSec,
      p50_ms: baseline.p50Ms,
      p99_ms: baseline.p99Ms,
      non_2xx: baseline.non2xx,
      errors: baseline.errors,
      ratio_to_bare: 1,
    });
    // The same route from the shoppers' HTTP client: how much the client itself can drive on these cores.
    const ceiling = await clientCeiling(`${bare.url}/bare`, 32, Math.min(SECONDS, 5));
    emit({
      target: "bare fastify route, shoppers' http client",
      req_per_s: ceiling,
      ratio_to_bare: Math.round((ceiling / baseline.okPerSec) * 100) / 100,
    });
    bare.stop();
    bare = undefined;

    const pids = { api: api.child.pid, postgres: postgres.pid(), redis: redis.pid() };
    await runMix(started.url, postgres.url, pids, baseline.okPerSec);
  } finally {
    bare?.stop();
    if (api !== undefined) await stopApi(api);
    await Promise.all([postgres?.dispose(), redis?.dispose()]);
    await rm(workDir, { recursive: true, force: true });
  }
}
