// GET /health and POST /graphql { health } against a bare Fastify route, on the api as `npm start`
// runs it (embedded database and cache) with its rate limits out of reach; then what the rate
// limiter itself costs a request, on PostgreSQL and Redis as production runs it.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { applyMigrations, createLogger, loadConfig, openPlatform, openRateLimiter, startEmbeddedPostgres } from '@shop/platform';
import { EMBEDDED_DATA_DIR } from '../services/platform/src/db/database.ts';
import { runApi } from '../services/api/test/support/run-api.ts';
import { startPostgres, startRedis, type ServerHandle } from '../test/infra/servers.ts';
import type { ServiceProcess } from '../test/support/service-process.ts';
import { startApi, stopApi } from './api-process.ts';
import { cpuSeconds } from './cpu.ts';
import { load, type LoadResult } from './load.ts';
import { setRateLimits } from './rate-limits.ts';
import { startBare, startServers } from './servers.ts';
import { median, round } from './stats.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** Rounds of the limiter's off / on pair, interleaved so both see the same machine. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const HEALTH_TARGET = 0.9;
const GRAPHQL_TARGET = 0.6;
const IDLE_RSS_TARGET_MB = 150;
const HEALTH_QUERY = JSON.stringify({ query: '{ health }' });
/** Takes of the limiter alone, and how many are in flight at once (as concurrent requests are). */
const TAKES = Number(process.env.BENCH_TAKES ?? 50_000);
const TAKES_IN_FLIGHT = 20;
/** The rate-limit policies of a run: see setRateLimits. */
type Mode = 'off' | 'out of reach';
const MODES: readonly Mode[] = ['off', 'out of reach'];

function emit(figure: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ bench: 'health', ...figure })}\n`);
}

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
  return Math.round(kb / 1024);
}

const clean = (...runs: LoadResult[]) => runs.every((run) => run.non2xx === 0 && run.errors === 0);

/** The rate counts 2xx answers only; a run (or its baseline) with refused or failed answers cannot meet its goal. */
function report(target: string, result: LoadResult, baseline: LoadResult, goal?: number): void {
  const ratio = round(result.okPerSec / baseline.okPerSec);
  emit({
    target,
    ok_req_per_s: result.okPerSec,
    p50_ms: result.p50Ms,
    p99_ms: result.p99Ms,
    non_2xx: result.non2xx,
    errors: result.errors,
    ratio_to_bare: ratio,
    ...(goal === undefined ? {} : { goal_ratio: goal, meets_goal: clean(result, baseline) && ratio >= goal }),
  });
}

/**
 * The embedded database's policies raised out of reach before the api opens it (one process at a time
 * holds PGlite's files, and the api loads the policies at boot): the bench is one client address, and
 * the `graphql` policy's 20 requests a second would refuse nearly all of it.
 */
async function raiseEmbeddedRateLimits(workDir: string): Promise<void> {
  const embedded = await startEmbeddedPostgres(path.join(workDir, EMBEDDED_DATA_DIR));
  try {
    await setRateLimits(embedded.url, 'out of reach');
  } finally {
    await embedded.close();
  }
}

async function againstBare(workDir: string, bareUrl: string): Promise<void> {
  await raiseEmbeddedRateLimits(workDir);
  // Embedded defaults, access log at INFO: the api as `npm start` runs it.
  const api = runApi({ PORT: '0' }, workDir);
  try {
    const url = await api.listening();
    const pid = api.child.pid as number;
    emit({ figure: 'api_idle_rss_mb', value: await rssMb(pid), goal_max: IDLE_RSS_TARGET_MB });
    const baseline = await load({ url: `${bareUrl}/bare`, seconds: SECONDS });
    report('bare fastify route', baseline, baseline);
    report('GET /health', await load({ url: `${url}/health`, seconds: SECONDS }), baseline, HEALTH_TARGET);
    report(
      'POST /graphql { health }, rate limits out of reach',
      await load({ url: `${url}/graphql`, method: 'POST', body: HEALTH_QUERY, seconds: SECONDS }),
      baseline,
      GRAPHQL_TARGET,
    );
    emit({ figure: 'api_rss_after_load_mb', value: await rssMb(pid) });
  } finally {
    api.child.kill('SIGTERM');
    await api.exited();
  }
}

/** Waits until the api answers with the policies `mode` set: a RateLimit-Policy header on /graphql, or none. */
async function policiesApplied(url: string, mode: Mode): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const response = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: HEALTH_QUERY });
    await response.arrayBuffer();
    if (response.ok && response.headers.has('ratelimit-policy') === (mode === 'out of reach')) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the api did not apply the rate-limit policies "${mode}" within 15 s`);
}

interface Measured {
  readonly result: LoadResult;
  /** CPU microseconds per 2xx answer: the api, and Redis (the buckets). */
  readonly apiUs: number;
  readonly redisUs: number;
}

/** `{ health }` for SECONDS after a warm-up, flat out or at a fixed rate, with the CPU it took. */
async function measured(url: string, pids: Record<string, number | undefined>, ratePerSec?: number): Promise<Measured> {
  const request = {
    url: `${url}/graphql`,
    method: 'POST',
    body: HEALTH_QUERY,
    warmUpSeconds: 0,
    ...(ratePerSec === undefined ? {} : { ratePerSec }),
  } as const;
  await load({ ...request, seconds: 2 });
  const before = await cpuSeconds(pids);
  const result = await load({ ...request, seconds: SECONDS });
  const after = await cpuSeconds(pids);
  const us = (name: string) => round((((after[name] ?? 0) - (before[name] ?? 0)) * 1e6) / Math.max(1, result.ok), 1);
  return { result, apiUs: us('api'), redisUs: us('redis') };
}

/**
 * The limiter alone, in this process, as the api's onRequest hook calls it: `take('graphql', caller)`
 * against the same Redis, TAKES_IN_FLIGHT at a time; its CPU per take (this process, and Redis) with
 * the policy enabled and out of reach, against disabled (the take ends at the policy lookup).
 */
async function limiterAlone(
  postgresUrl: string,
  redisUrl: string,
  pids: Record<string, number | undefined>,
): Promise<Record<string, unknown>> {
  const logger = createLogger({ level: 'ERROR', service: 'bench' });
  const platform = await openPlatform(
    loadConfig({ NODE_ENV: 'test', DATABASE_URL: postgresUrl, CACHE_URL: redisUrl, LOG_LEVEL: 'ERROR' }),
    logger,
    'bench',
  );
  const opened = await openRateLimiter(platform);
  try {
    const takes = async () => {
      let next = 0;
      const before = await cpuSeconds(pids);
      const started = performance.now();
      await Promise.all(
        Array.from({ length: TAKES_IN_FLIGHT }, async () => {
          while (next < TAKES) {
            next += 1;
            const decision = await opened.limiter.take('graphql', '127.0.0.1');
            if (decision !== undefined && !decision.allowed) throw new Error('the limiter refused a take with its policy out of reach');
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      const after = await cpuSeconds(pids);
      const us = (name: string) => round((((after[name] ?? 0) - (before[name] ?? 0)) * 1e6) / TAKES, 1);
      return { takes_per_s: Math.round(TAKES / seconds), cpu_us_per_take: { bench_process: us('client'), redis: us('redis') } };
    };
    const figures: Record<string, unknown> = {};
    for (const mode of MODES) {
      await setRateLimits(postgresUrl, mode);
      await opened.policies.reload();
      await takes(); // warm-up
      figures[mode] = await takes();
    }
    return figures;
  } finally {
    await opened.close();
    await platform.close();
  }
}

/**
 * The limiter's own cost: `{ health }` with every policy disabled (the charge ends at looking the
 * policy up) against every policy enabled and out of reach (each request takes a token from its
 * Redis bucket and carries the RateLimit headers), on one api process, the policies switched through
 * the table between runs, off and on interleaved. First flat out (the rates' ratio), then both at the
 * same fixed rate, half the lower maximum: the api's CPU per request depends on how busy it is (a
 * saturated loop batches its work), so it is compared at one rate.
 */
async function limiterCost(workDir: string): Promise<void> {
  const servers: ServerHandle[] = [];
  let api: ServiceProcess | undefined;
  try {
    const [postgres, redis] = (await startServers(servers, [startPostgres(), startRedis()])) as [ServerHandle, ServerHandle];
    await applyMigrations(postgres.url);
    const running = await startApi(workDir, postgres.url, redis.url);
    api = running.service;
    const pids = { api: api.child.pid, redis: redis.pid() };
    const rounds = async (phase: string, ratePerSec?: number) => {
      const runs: Record<Mode, Measured[]> = { off: [], 'out of reach': [] };
      for (let index = 0; index < ROUNDS; index += 1) {
        for (const mode of MODES) {
          await setRateLimits(postgres.url, mode);
          await policiesApplied(running.url, mode);
          const run = await measured(running.url, pids, ratePerSec);
          runs[mode].push(run);
          emit({
            target: `POST /graphql { health }, rate limits ${mode}, ${phase}`,
            round: index + 1,
            ok_req_per_s: run.result.okPerSec,
            p50_ms: run.result.p50Ms,
            p99_ms: run.result.p99Ms,
            non_2xx: run.result.non2xx,
            errors: run.result.errors,
            api_cpu_us_per_request: run.apiUs,
            redis_cpu_us_per_request: run.redisUs,
          });
        }
      }
      const middle = (mode: Mode, pick: (run: Measured) => number) => median(runs[mode].map(pick));
      return { runs, middle };
    };
    const flatOut = await rounds('flat out');
    const [offRate, onRate] = MODES.map((mode) => flatOut.middle(mode, (run) => run.result.okPerSec)) as [number, number];
    const fixedRate = Math.round(Math.min(offRate, onRate) / 2);
    const fixed = await rounds(`${fixedRate} requests/s`, fixedRate);
    const [offApiUs, onApiUs] = MODES.map((mode) => fixed.middle(mode, (run) => run.apiUs)) as [number, number];
    const alone = await limiterAlone(postgres.url, redis.url, pids);
    const every = [flatOut, fixed].flatMap(({ runs }) => MODES.flatMap((mode) => runs[mode].map((run) => run.result)));
    emit({
      figure: 'rate limiter cost per request (POST /graphql { health }, buckets in Redis; medians of rounds)',
      api: 'its own process, NODE_ENV=test, PostgreSQL and Redis, logs at ERROR',
      rounds: ROUNDS,
      clean: clean(...every),
      off_ok_req_per_s: offRate,
      on_ok_req_per_s: onRate,
      ratio_on_to_off: round(onRate / offRate, 3),
      wall_us_per_request_from_rates: round((1 / onRate - 1 / offRate) * 1e6, 1),
      at_fixed_req_per_s: fixedRate,
      api_cpu_us_per_request_off: offApiUs,
      api_cpu_us_per_request_on: onApiUs,
      limiter_api_cpu_us_per_request: round(onApiUs - offApiUs, 1),
      limiter_redis_cpu_us_per_request: fixed.middle('out of reach', (run) => run.redisUs),
      limiter_alone_in_the_bench_process: { takes: TAKES, in_flight: TAKES_IN_FLIGHT, ...alone },
    });
  } finally {
    if (api !== undefined) await stopApi(api);
    await Promise.all(servers.map((server) => server.dispose()));
  }
}

export async function benchHealth(): Promise<void> {
  const workDir = await mkdtemp(path.join(tmpdir(), 'shop-bench-'));
  const bare = await startBare();
  try {
    emit({ figure: 'setup', cores: availableParallelism(), load_average_1m: round(loadavg()[0] ?? 0, 1), node: process.version });
    await againstBare(path.join(workDir, 'embedded'), bare.url);
    await limiterCost(workDir);
  } finally {
    bare.stop();
    await rm(workDir, { recursive: true, force: true });
  }
}
