// Stored secrets on real PostgreSQL: what one decrypt costs against a plain read of the same row, how
// fast `npm run secrets:rewrap`'s code moves 100,000 rows to a new master key (alone, at several batch
// sizes, with a cost model per row), and the storefront's latency at half its maximum while it does.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import {
  applyMigrations,
  createLogger,
  createMetricsRegistry,
  loadConfig,
  masterKeyring,
  openDatabase,
  readStoredSecret,
  rewrapSecrets,
  type Database,
  type MasterKeyring,
  type RewrapResult,
} from '@shop/platform';
import { placeOf, STORED_SECRET_VALUES } from '../services/platform/src/secrets/encrypted-columns.ts';
import { openSecret, sealSecret, type SealedSecret } from '../services/platform/src/secrets/envelope.ts';
import { startPostgres, startRedis, type ServerHandle } from '../test/infra/servers.ts';
import { liftRateLimits } from '../test/support/rate-limits.ts';
import { startApi, stopApi } from './api-process.ts';
import { cpuPercent, cpuSeconds } from './cpu.ts';
import { enableStatementStats, startServers } from './servers.ts';
import { runShoppers, type ShoppersJob, type ShoppersOutcome } from './shoppers-process.ts';
import { median, percentile, round } from './stats.ts';
import { discoverCatalog, seedDemoCatalog } from './storefront-catalog.ts';
import { maximumOf, openLoopFields } from './storefront-beside.ts';

const SECRETS = Number(process.env.BENCH_SECRETS ?? 100_000);
/** The rewrap's batch size while the storefront runs: the CLI's default. */
const BATCH_SIZE = Number(process.env.BENCH_REWRAP_BATCH ?? 500);
/** Batch sizes of the rewrap alone, for the cost model. */
const ALONE_BATCH_SIZES = (process.env.BENCH_REWRAP_BATCHES ?? '100,500,2000').split(',').map(Number);
const SEED_BATCH = 5_000;
const READS = Number(process.env.BENCH_READS ?? 5_000);
const READ_BLOCK = 500;
const CRYPTO_ROWS = 20_000;
const REWRAP_GOAL_S = 30;
const STOREFRONT_P95_TARGET_MS = 50;
const LOAD_SHARE = 0.5;
const SHOPPER_SWEEP = { levels: [8, 16, 32], stillRising: 0.05, maxLevel: 128 };
const LEVEL_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** Both open-loop windows last as long as the rewrap alone took, within these bounds; the rewrap goes on pass after pass until the second ends. */
const WINDOW_SECONDS = { min: 10, max: 45 };

function emit(figure: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ bench: 'secrets', ...figure })}\n`);
}

const keyOf = (index: number) => `bench/gateway-${String(index).padStart(7, '0')}`;
/** The size of a payment gateway's API key. */
const valueOf = (index: number) => `sk_live_${index.toString(16).padStart(8, '0')}${'x'.repeat(24)}`;

/** The two master keys the rows move between; each pass of the rewrap moves every row to the other one. */
class Keys {
  readonly #a = randomBytes(32);
  readonly #b = randomBytes(32);
  #underA = true;
  /** The keyring whose current key holds every row now: the one the rows were written with. */
  get now(): MasterKeyring {
    return this.#underA ? masterKeyring(this.#a, [this.#b]) : masterKeyring(this.#b, [this.#a]);
  }
  /** The keyring a rewrap moves every row with: the other key current. */
  get next(): MasterKeyring {
    return this.#underA ? masterKeyring(this.#b, [this.#a]) : masterKeyring(this.#a, [this.#b]);
  }
  moved(): void {
    this.#underA = !this.#underA;
  }
  /** The api's keys: either may be current, the other is SECRETS_MASTER_KEY_ROTATING_FROM. */
  apiEnv(): Record<string, string> {
    return { SECRETS_MASTER_KEY: this.#b.toString('base64url'), SECRETS_MASTER_KEY_ROTATING_FROM: this.#a.toString('base64url') };
  }
}

/** SECRETS rows sealed by the platform's own envelope under the keyring's current key, in multi-row inserts. */
async function seedSecrets(pool: pg.Pool, keyring: MasterKeyring): Promise<void> {
  const started = performance.now();
  let sealing = 0;
  await pool.query('TRUNCATE stored_secrets');
  for (let first = 0; first < SECRETS; first += SEED_BATCH) {
    const indexes = Array.from({ length: Math.min(SEED_BATCH, SECRETS - first) }, (_, offset) => first + offset);
    const sealStarted = performance.now();
    const sealed = indexes.map((index) => sealSecret(keyring, valueOf(index), placeOf(STORED_SECRET_VALUES, keyOf(index))));
    sealing += performance.now() - sealStarted;
    await pool.query(
      `INSERT INTO stored_secrets (key, key_id, ciphertext, set_at) SELECT key, key_id, ciphertext, now() FROM unnest($1::text[], $2::text[], $3::bytea[]) AS v(key, key_id, ciphertext)`,
      [indexes.map(keyOf), sealed.map((value) => value.keyId), sealed.map((value) => value.ciphertext)],
    );
  }
  await pool.query('VACUUM ANALYZE stored_secrets');
  const seconds = (performance.now() - started) / 1000;
  emit({
    figure: 'seed',
    rows: SECRETS,
    seconds: round(seconds, 1),
    rows_per_s: Math.round(SECRETS / seconds),
    sealing_s: round(sealing / 1000, 2),
    rows_per_insert: SEED_BATCH,
  });
}

interface Timings {
  readonly meanUs: number;
  readonly p50Us: number;
  readonly p99Us: number;
}

function timings(samplesMs: readonly number[]): Timings {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const us = (ms: number) => round(ms * 1000, 1);
  return {
    meanUs: us(sorted.reduce((sum, value) => sum + value, 0) / sorted.length),
    p50Us: us(percentile(sorted, 50)),
    p99Us: us(percentile(sorted, 99)),
  };
}

/**
 * One stored secret read by key through Prisma, as the platform reads it: the row alone (a plain read)
 * against `readStoredSecret` (the row, then its decrypt), one at a time, in alternating blocks so both
 * see the same machine; and the decrypt alone on rows already in memory.
 */
async function readCost(database: Database, keyring: MasterKeyring): Promise<void> {
  const prisma = database.prisma;
  const pick = (n: number) => keyOf((n * 7_919) % SECRETS);
  const readRow = (key: string) => prisma.storedSecret.findUniqueOrThrow({ where: { key }, select: { keyId: true, ciphertext: true } });
  const readAndDecrypt = (key: string) => readStoredSecret(prisma, keyring, key);
  const timed = async (samples: number[], read: (key: string) => Promise<unknown>, key: string) => {
    const started = performance.now();
    await read(key);
    samples.push(performance.now() - started);
  };
  // Warm-up: Prisma's query plan cache, the pool, the JIT.
  for (let n = 0; n < READ_BLOCK; n += 1) await Promise.all([readRow(pick(n)), readAndDecrypt(pick(n))]);
  const plain: number[] = [];
  const decrypting: number[] = [];
  for (let n = 0; n < READS; n += 1) {
    // The same row both ways, which goes first alternating by block.
    const plainFirst = Math.floor(n / READ_BLOCK) % 2 === 0;
    await timed(plainFirst ? plain : decrypting, plainFirst ? readRow : readAndDecrypt, pick(n));
    await timed(plainFirst ? decrypting : plain, plainFirst ? readAndDecrypt : readRow, pick(n));
  }
  const rows = await Promise.all(
    Array.from({ length: READ_BLOCK }, (_, n) =>
      readRow(pick(n)).then((row) => ({ key: pick(n), sealed: { keyId: row.keyId, ciphertext: Buffer.from(row.ciphertext) } })),
    ),
  );
  const decryptOnly: number[] = [];
  for (let n = 0; n < READS; n += 1) {
    const { key, sealed } = rows[n % rows.length] as { key: string; sealed: SealedSecret };
    const started = performance.now();
    openSecret(keyring, sealed, placeOf(STORED_SECRET_VALUES, key));
    decryptOnly.push(performance.now() - started);
  }
  const [plainT, decryptingT, decryptT] = [timings(plain), timings(decrypting), timings(decryptOnly)];
  emit({
    figure: 'one stored secret read by key (Prisma findUnique, one at a time)',
    reads_each: READS,
    plain_read_us: plainT,
    read_and_decrypt_us: decryptingT,
    decrypt_alone_us: decryptT,
    // The medians: on a shared machine a few reads wait for a core, and the means carry those waits.
    ratio_read_and_decrypt_to_plain_read: round(decryptingT.p50Us / plainT.p50Us, 3),
    ratio_decrypt_alone_to_plain_read: round(decryptT.p50Us / plainT.p50Us, 4),
    ratio_of_means_read_and_decrypt_to_plain_read: round(decryptingT.meanUs / plainT.meanUs, 3),
  });
}

/** Open (check and decrypt) and seal again, as the rewrap does per row, on rows in memory: its crypto alone, in CPU microseconds per row. */
function cryptoCpuUsPerRow(keys: Keys): number {
  const from = keys.now;
  const to = keys.next;
  const rows = Array.from({ length: 1_000 }, (_, index) => ({
    key: keyOf(index),
    sealed: sealSecret(from, valueOf(index), placeOf(STORED_SECRET_VALUES, keyOf(index))),
  }));
  // CPU time, not wall time: on a shared machine the loop also waits for a core.
  const before = process.cpuUsage();
  for (let n = 0; n < CRYPTO_ROWS; n += 1) {
    const { key, sealed } = rows[n % rows.length] as { key: string; sealed: SealedSecret };
    const place = placeOf(STORED_SECRET_VALUES, key);
    sealSecret(to, openSecret(to, sealed, place), place);
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / CRYPTO_ROWS;
}

interface StatementTime {
  readonly calls: number;
  readonly execMs: number;
}

/** pg_stat_statements of the rewrap's two statements since the last reset: the batch read and the compare-and-swap update. */
async function rewrapStatements(pool: pg.Pool): Promise<{ select: StatementTime; update: StatementTime }> {
  const { rows } = await pool.query<{ kind: 'select' | 'update'; calls: number; ms: number }>(
    `SELECT CASE WHEN query LIKE 'UPDATE%' THEN 'update' ELSE 'select' END AS kind, sum(calls)::float8 AS calls, sum(total_exec_time)::float8 AS ms
       FROM pg_stat_statements
      WHERE query LIKE '%stored_secrets%' AND (query LIKE 'UPDATE%' OR query LIKE 'SELECT%LIMIT%')
      GROUP BY 1`,
  );
  const of = (kind: 'select' | 'update') => {
    const row = rows.find((candidate) => candidate.kind === kind);
    return { calls: row?.calls ?? 0, execMs: row?.ms ?? 0 };
  };
  return { select: of('select'), update: of('update') };
}

interface Pass {
  readonly result: RewrapResult;
  /** Percent of one core per process over the pass. */
  readonly cpu: Record<string, number>;
  /** CPU microseconds per row: this process (the crypto and the pg client) and PostgreSQL's backends. */
  readonly cpuUsPerRow: { readonly bench_process: number; readonly postgres: number };
}

/**
 * One run of the rewrap, moving every row to the other key; fails when a row was left or kept. It
 * starts on a vacuumed table, as a rotation's rewrap does (its rows were last updated a rotation
 * ago): right after a pass, each row's old version is still in the table and in its indexes, and
 * the next pass's batch reads would step over all of them.
 */
async function rewrapPass(pool: pg.Pool, keys: Keys, batchSize: number, pids: Record<string, number | undefined>): Promise<Pass> {
  await pool.query('VACUUM ANALYZE stored_secrets');
  const before = await cpuSeconds(pids);
  const result = await rewrapSecrets(pool, keys.next, { batchSize });
  const after = await cpuSeconds(pids);
  if (result.rewrapped !== SECRETS || result.left !== 0)
    throw new Error(`the rewrap moved ${result.rewrapped} of ${SECRETS} rows and left ${result.left}`);
  keys.moved();
  const usPerRow = (name: string) => round((((after[name] ?? 0) - (before[name] ?? 0)) * 1e6) / SECRETS, 1);
  return {
    result,
    cpu: cpuPercent(before, after, result.seconds),
    cpuUsPerRow: { bench_process: usPerRow('client'), postgres: usPerRow('postgres') },
  };
}

/**
 * The rewrap alone at each batch size, and where a row's time goes: this process's CPU (the crypto,
 * measured apart on rows in memory, and the pg client encoding and decoding the batch's bytea
 * arrays), PostgreSQL's CPU, the time its executor spent in the two statements (pg_stat_statements:
 * wall time, so it includes waiting for a core), and the wall time neither process spent on a core:
 * waiting for a round trip or for a core.
 */
async function rewrapAlone(pool: pg.Pool, keys: Keys, pids: Record<string, number | undefined>): Promise<number> {
  const cryptoUs = cryptoCpuUsPerRow(keys);
  const seconds = new Map<number, number>();
  for (const batchSize of ALONE_BATCH_SIZES) {
    await pool.query('SELECT pg_stat_statements_reset()');
    const { result, cpu, cpuUsPerRow } = await rewrapPass(pool, keys, batchSize, pids);
    const statements = await rewrapStatements(pool);
    const wallUs = (result.seconds * 1e6) / SECRETS;
    const perRow = (ms: number) => round((ms * 1000) / SECRETS, 1);
    seconds.set(batchSize, result.seconds);
    emit({
      figure: 'rewrap alone',
      rows: SECRETS,
      batch_size: batchSize,
      seconds: round(result.seconds, 2),
      rows_per_s: Math.round(SECRETS / result.seconds),
      goal_s: REWRAP_GOAL_S,
      meets_goal: result.seconds < REWRAP_GOAL_S,
      batches: statements.update.calls,
      ms_per_batch: round((result.seconds * 1000) / Math.max(1, statements.update.calls), 1),
      cost_model_us_per_row: {
        wall: round(wallUs, 1),
        bench_process_cpu: cpuUsPerRow.bench_process,
        of_which_crypto_open_and_seal: round(cryptoUs, 1),
        postgres_cpu: cpuUsPerRow.postgres,
        postgres_exec_select: perRow(statements.select.execMs),
        postgres_exec_update: perRow(statements.update.execMs),
        waiting_round_trips_or_a_core: round(wallUs - cpuUsPerRow.bench_process - cpuUsPerRow.postgres, 1),
      },
      cpu_pct_of_one_core: cpu,
    });
  }
  // The pass at the batch size the storefront phase uses, or the slowest when it was not among them.
  return seconds.get(BATCH_SIZE) ?? Math.max(...seconds.values());
}

/** The storefront's maximum with the api on both keys, then its open loop at half of it without and during the rewrap. */
async function storefrontDuringRewrap(
  database: Database,
  keys: Keys,
  pids: Record<string, number | undefined>,
  redisUrl: string,
  workDir: string,
  aloneSeconds: number,
): Promise<void> {
  const api = await startApi(workDir, database.url, redisUrl, keys.apiEnv());
  const apiPids = { ...pids, api: api.service.child.pid };
  try {
    const catalog = await discoverCatalog(api.url);
    const shoppers = (job: Omit<ShoppersJob, 'url' | 'catalog'>) => runShoppers({ url: api.url, catalog, ...job });
    await shoppers({ mode: 'closed', level: 16, seconds: 3, seed: 99 });
    const best = await maximumOf(SHOPPER_SWEEP, async (level) => {
      const { result, failures } = await shoppers({ mode: 'closed', level, seconds: LEVEL_SECONDS, seed: level });
      emit({
        figure: 'storefront closed loop',
        shoppers: level,
        req_per_s: result.reqPerSec,
        p95_ms: result.all.p95Ms,
        errors: result.errors,
        ...(Object.keys(failures).length > 0 ? { first_failures: failures } : {}),
      });
      return result;
    });
    const rate = Math.max(1, Math.round(best.result.reqPerSec * LOAD_SHARE));
    const window = Math.round(Math.min(WINDOW_SECONDS.max, Math.max(WINDOW_SECONDS.min, aloneSeconds)));
    emit({
      figure: 'storefront setup',
      maximum_req_per_s: best.result.reqPerSec,
      at_shoppers: best.level,
      offered_req_per_s: rate,
      window_s: window,
      rewrap_batch_size: BATCH_SIZE,
    });

    const openLoop = async (seed: number) => {
      const before = await cpuSeconds(apiPids);
      const outcome: ShoppersOutcome = await shoppers({ mode: 'open', level: rate, seconds: window, seed });
      const cpu = cpuPercent(before, await cpuSeconds(apiPids), outcome.result.seconds);
      return { outcome, cpu: { ...cpu, shoppers: Math.round((outcome.cpuSeconds / outcome.result.seconds) * 100) } };
    };
    const figure = (when: string, run: Awaited<ReturnType<typeof openLoop>>, extra: Record<string, unknown> = {}) => ({
      figure: `storefront open loop at ${LOAD_SHARE * 100}% of its maximum`,
      when,
      ...openLoopFields(run.outcome.result, rate, STOREFRONT_P95_TARGET_MS),
      // `client` is this process: the rewrap; the shoppers run in their own.
      cpu_pct_of_one_core: run.cpu,
      ...(Object.keys(run.outcome.failures).length > 0 ? { first_failures: run.outcome.failures } : {}),
      ...extra,
    });

    const without = await openLoop(2);
    emit(figure('no rewrap running', without));

    // The rewrap goes on, pass after pass, until the window ends, so the whole window runs beside it.
    let windowOpen = true;
    const passes: RewrapResult[] = [];
    const [during] = await Promise.all([
      openLoop(3).finally(() => (windowOpen = false)),
      (async () => {
        while (windowOpen) passes.push((await rewrapPass(database.pool, keys, BATCH_SIZE, apiPids)).result);
      })(),
    ]);
    const first = passes[0] as RewrapResult;
    emit(figure('while the rewrap runs', during, { rewrap_passes: passes.length }));
    emit({
      figure: 'rewrap while the storefront runs',
      rows: SECRETS,
      batch_size: BATCH_SIZE,
      seconds: round(first.seconds, 2),
      rows_per_s: Math.round(SECRETS / first.seconds),
      rows_per_s_of_every_pass: passes.map((pass) => Math.round(SECRETS / pass.seconds)),
      goal_s: REWRAP_GOAL_S,
      meets_goal: first.seconds < REWRAP_GOAL_S,
      storefront_p95_ms_without: without.outcome.result.all.p95Ms,
      storefront_p95_ms_during: during.outcome.result.all.p95Ms,
      ratio_p95_during_to_without: round(during.outcome.result.all.p95Ms / without.outcome.result.all.p95Ms),
      storefront_p95_goal_ms: STOREFRONT_P95_TARGET_MS,
      storefront_meets_goal_during: openLoopFields(during.outcome.result, rate, STOREFRONT_P95_TARGET_MS).meets_goal,
      rewrap_seconds_median_of_passes: round(median(passes.map((pass) => pass.seconds)), 2),
    });
  } finally {
    await stopApi(api.service);
  }
}

export async function benchSecrets(): Promise<void> {
  const started = performance.now();
  const workDir = await mkdtemp(path.join(tmpdir(), 'shop-bench-secrets-'));
  const servers: ServerHandle[] = [];
  let database: Database | undefined;
  try {
    const [postgres, redis] = (await startServers(servers, [startPostgres(), startRedis()])) as [ServerHandle, ServerHandle];
    await enableStatementStats(postgres);
    await applyMigrations(postgres.url);
    await liftRateLimits(postgres.url);
    // Before the secrets: the seed command, like every process, refuses rows under keys it does not hold.
    await seedDemoCatalog(postgres.url);
    const keys = new Keys();
    const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: postgres.url, LOG_LEVEL: 'ERROR' });
    database = await openDatabase(config, createLogger({ level: 'ERROR', service: 'bench' }), createMetricsRegistry('bench'));
    const [load1, load5] = loadavg();
    emit({
      figure: 'setup',
      cores: availableParallelism(),
      load_average_1m: round(load1 ?? 0, 1),
      load_average_5m: round(load5 ?? 0, 1),
      node: process.version,
      secrets: SECRETS,
    });

    await seedSecrets(database.pool, keys.now);
    await readCost(database, keys.now);
    const pids = { postgres: postgres.pid(), redis: redis.pid() };
    const aloneSeconds = await rewrapAlone(database.pool, keys, pids);
    await storefrontDuringRewrap(database, keys, pids, redis.url, workDir, aloneSeconds);
    emit({ figure: 'run', seconds: Math.round((performance.now() - started) / 1000), load_average_1m_at_end: round(loadavg()[0] ?? 0, 1) });
  } finally {
    await database?.close();
    await Promise.all(servers.map((server) => server.dispose()));
    await rm(workDir, { recursive: true, force: true });
  }
}
