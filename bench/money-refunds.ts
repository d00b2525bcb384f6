// The refund half of `npm run bench -- money`: refunds executed per second end to end, from staff's
// request (one transaction writing the request and its event) through the outbox's listener, which
// starts RefundExecutionWorkflow, to its end after the card refund at the test gateway; against
// TrivialWorkflow (one no-op activity) started and awaited on the same server and worker, in the same
// run. Only requests whose workflow ended SUCCEEDED count; afterwards the gateway's own log must hold
// exactly one refund per request.
import { availableParallelism, loadavg } from 'node:os';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import type pg from 'pg';
import {
  applyMigrations,
  createLogger,
  givenCredentials,
  HttpPaymentGateway,
  loadConfig,
  openPlatform,
  startOutbox,
  workflowMetrics,
  type Platform,
  type RunningOutbox,
} from '@shop/platform';
import { type DomainDeps } from '@shop/domain/kernel';
import { requestRefund } from '@shop/domain/refunds';
import { sweepPace } from '@shop/domain/workflow-runs';
import { TASK_QUEUE, workflowIds } from '@shop/domain/workflows';
import { startPostgres, startTemporal, type ServerHandle } from '../test/infra/servers.ts';
import { createActivities } from '../services/worker/src/activities/create-activities.ts';
import { startBenchWorker, type BenchWorker } from './workflows/bench-worker.ts';
import { TemporalWorkflowEngine } from '../services/api/src/workflows/temporal-engine.ts';
import { workflowTriggers } from '../services/api/src/workflows/workflow-triggers.ts';
import { startTestGateway, TestGatewayControl, type RunningTestGateway } from '../tools/test-gateway/src/index.ts';
import { startServers } from './servers.ts';
import { median, round } from './stats.ts';

/** Refunds (and trivial workflows) per round, rounds, and the warm-up of each kind. */
const REFUNDS = Number(process.env.BENCH_REFUNDS ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 50);
/** Requests in flight at once, as several staff or returns would make them. */
const IN_FLIGHT = 20;
const WORKFLOW_TIMEOUT = '5 minutes';
const GATEWAY_KEY = 'bench_money_gateway_key';
/** Each order: 10.00 EUR paid by card, captured, then refunded whole. */
const AMOUNT_MINOR = 1000;

function emit(figure: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ bench: 'money', ...figure })}\n`);
}

function note(message: string): void {
  process.stderr.write(`[bench money] ${message}\n`);
}

const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Runs `run` for every item, at most IN_FLIGHT at once; failures are counted with their first message, never rated. */
async function inFlight<T>(
  items: readonly T[],
  run: (item: T) => Promise<void>,
): Promise<{ completed: number; errors: string[]; seconds: number }> {
  const started = performance.now();
  let completed = 0;
  const errors: string[] = [];
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      try {
        await run(item);
        completed += 1;
      } catch (error) {
        errors.push(errorMessage(error));
      }
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  return { completed, errors, seconds: (performance.now() - started) / 1000 };
}

let prepared = 0;

/**
 * `count` FULFILLED orders of 10.00 EUR, each with a CARD tender authorized and captured at the test
 * gateway (so the gateway has the capture its refund needs), written in one statement. Not timed.
 */
async function capturedOrders(pool: pg.Pool, gateway: HttpPaymentGateway, channelId: string, count: number): Promise<bigint[]> {
  const authorizations: string[] = [];
  const first = prepared;
  prepared += count;
  const indexes = Array.from({ length: count }, (_, index) => first + index);
  const { errors } = await inFlight(indexes, async (index) => {
    const amount = { amountMinor: AMOUNT_MINOR, currency: 'EUR' };
    const authorized = await gateway.authorize({ idempotencyKey: `bench:authorize:${index}`, amount, cardToken: 'tok_bench' });
    if (authorized.status !== 'approved') throw new Error(`authorization ${index}: ${JSON.stringify(authorized)}`);
    const captured = await gateway.capture({ idempotencyKey: `bench:capture:${index}`, authorizationId: authorized.id, amount });
    if (captured.status !== 'approved') throw new Error(`capture ${index}: ${JSON.stringify(captured)}`);
    authorizations[index - first] = authorized.id;
  });
  if (errors.length > 0) throw new Error(`${errors.length} bench payments failed at the gateway; first: ${errors[0]}`);
  const { rows } = await pool.query<{ id: string }>(
    `WITH placed AS (
       INSERT INTO orders (number, channel_id, email, status, currency, subtotal, tax, shipping, discount, total,
                           billing_address, shipping_address, paid_at, fulfilled_at, updated_at)
       SELECT 'BENCH-REFUND-' || i, $1, 'bench@example.com', 'FULFILLED', 'EUR', 10, 0, 0, 0, 10, $3::jsonb, $3::jsonb, now(), now(), now()
         FROM unnest($2::int[]) AS i
       RETURNING id, number),
     tendered AS (
       INSERT INTO payment_tenders (order_id, kind, status, currency, authorized_amount, captured_amount, gateway_reference, idempotency_key, authorization_expires_at, updated_at)
       SELECT placed.id, 'CARD', 'CAPTURED', 'EUR', 10, 10, a.authorization_id, 'bench:authorize:' || a.i, now() + interval '7 days', now()
         FROM unnest($2::int[], $4::text[]) AS a(i, authorization_id) JOIN placed ON placed.number = 'BENCH-REFUND-' || a.i)
     SELECT id::text FROM placed ORDER BY id`,
    [
      channelId,
      indexes,
      JSON.stringify({ name: 'Ada Lovelace', line1: 'Main Street 1', postalCode: '10115', city: 'Berlin', countryCode: 'DE' }),
      authorizations,
    ],
  );
  return rows.map((row) => BigInt(row.id));
}

/** The workflow's result once the outbox's listener has started it. */
async function resultOnceStarted(client: Client, workflowId: string): Promise<unknown> {
  for (;;) {
    try {
      return await client.workflow.getHandle(workflowId).result();
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

interface Round {
  readonly trivialPerSecond: number;
  readonly refundsPerSecond: number;
  readonly failed: { readonly trivial: number; readonly refunds: number };
}

export async function benchMoneyRefunds(): Promise<void> {
  const benchStarted = performance.now();
  const servers: ServerHandle[] = [];
  let platform: Platform | undefined;
  let outbox: RunningOutbox | undefined;
  let gateway: RunningTestGateway | undefined;
  let worker: BenchWorker | undefined;
  let connection: Connection | undefined;
  try {
    const [postgres, temporalServer] = (await startServers(servers, [startPostgres(), startTemporal()])) as [ServerHandle, ServerHandle];
    await applyMigrations(postgres.url);
    const logger = createLogger({ level: 'ERROR', service: 'bench' });
    platform = await openPlatform(loadConfig({ NODE_ENV: 'test', DATABASE_URL: postgres.url, EVENT_SCHEMA_MODE: 'warn' }), logger, 'bench');
    const { pool } = platform.database;
    gateway = await startTestGateway({ databaseUrl: postgres.url, apiKey: GATEWAY_KEY });
    const cards = new HttpPaymentGateway({ baseUrl: gateway.url, credentials: givenCredentials(GATEWAY_KEY) });
    const { rows } = await pool.query<{ channel_id: string; staff_id: string }>(`
      WITH channel AS (INSERT INTO channels (code, name, default_currency, updated_at) VALUES ('bench', 'Bench', 'EUR', now()) RETURNING id),
           staff AS (INSERT INTO staff_users (email, password_hash, name, updated_at) VALUES ('bench@shop.test', 'scrypt$unused', 'Bench', now()) RETURNING id)
      SELECT channel.id::text AS channel_id, staff.id::text AS staff_id FROM channel, staff`);
    const { channel_id: channelId, staff_id: staffId } = rows[0] ?? { channel_id: '', staff_id: '' };

    // The api's path: the outbox dispatcher here hands payments.refund_requested to the workflow triggers on the Temporal engine.
    connection = await Connection.connect({ address: temporalServer.url });
    const client = new Client({ connection });
    const dispatching = startOutbox(platform, { listeners: workflowTriggers(new TemporalWorkflowEngine(client)), idleMs: 20 });
    outbox = dispatching;
    const deps: DomainDeps = { emit: dispatching.emit, now: () => new Date(), gateway: cards };
    const activities = createActivities({
      transaction: dispatching.transaction,
      deps,
      metrics: workflowMetrics(platform.metrics),
      pace: sweepPace(platform.config.sweepRowsPerSecond),
    });
    worker = await startBenchWorker(temporalServer.url, activities);
    const [load1, load5] = loadavg();
    emit({
      figure: 'setup (refunds)',
      cores: availableParallelism(),
      load_average_1m: round(load1 ?? 0, 1),
      load_average_5m: round(load5 ?? 0, 1),
      node: process.version,
      temporal: 'the Temporal CLI dev server (test/infra startTemporal: SQLite in a file)',
      gateway: 'the test gateway (HTTP, its state in the same PostgreSQL), in the bench process',
      worker: 'one, in the bench process, its activities on the outbox transaction of a pool of 10 database connections',
      refunds_per_round: REFUNDS,
      rounds: ROUNDS,
      warm_up_per_kind: WARM_UP,
      in_flight: IN_FLIGHT,
    });

    let trivialRuns = 0;
    const trivial = (n: number) =>
      inFlight(
        Array.from({ length: n }, () => `trivial-${++trivialRuns}`),
        async (workflowId) => {
          await (
            await client.workflow.start('TrivialWorkflow', {
              workflowId,
              taskQueue: TASK_QUEUE,
              workflowExecutionTimeout: WORKFLOW_TIMEOUT,
            })
          ).result();
        },
      );
    const refunds = async (n: number) => {
      const orders = await capturedOrders(pool, cards, channelId, n);
      return inFlight(orders, async (orderId) => {
        const request = await dispatching.transaction((tx) =>
          requestRefund(tx, deps, {
            orderId,
            amount: '10.00',
            reason: 'bench',
            idempotencyKey: `bench:refund:${orderId}`,
            source: { kind: 'STAFF', staffUserId: BigInt(staffId) },
          }),
        );
        const result = (await resultOnceStarted(client, workflowIds.refundExecution(request.id))) as { status: string };
        if (result.status !== 'SUCCEEDED') throw new Error(`refund request ${request.id} ended ${JSON.stringify(result)}`);
      });
    };

    await trivial(WARM_UP);
    await refunds(WARM_UP);
    const rounds: Round[] = [];
    for (let round_ = 1; round_ <= ROUNDS; round_ += 1) {
      const baseline = await trivial(REFUNDS);
      const measured = await refunds(REFUNDS);
      for (const [kind, phase] of [
        ['trivial', baseline],
        ['refunds', measured],
      ] as const) {
        if (phase.errors.length > 0) note(`${kind} round ${round_}: ${phase.errors.length} failed; first: ${phase.errors[0]}`);
      }
      const figures = { trivialPerSecond: baseline.completed / baseline.seconds, refundsPerSecond: measured.completed / measured.seconds };
      emit({
        figure: 'refunds executed per second, end to end (round)',
        round: round_,
        refunds_per_s: round(figures.refundsPerSecond),
        trivial_per_s: round(figures.trivialPerSecond),
        ratio_to_trivial: round(figures.refundsPerSecond / figures.trivialPerSecond),
        completed: { trivial: baseline.completed, refunds: measured.completed },
        failed: { trivial: baseline.errors.length, refunds: measured.errors.length },
      });
      rounds.push({ ...figures, failed: { trivial: baseline.errors.length, refunds: measured.errors.length } });
    }

    // Exactly once, on the gateway's own log: one refund per request that ended SUCCEEDED (warm-up included).
    const operations = await new TestGatewayControl(gateway.url, GATEWAY_KEY).operations();
    const gatewayRefunds = operations.filter((operation) => operation.kind === 'refund' && operation.status === 'approved').length;
    const { rows: settled } = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM refunds WHERE status = 'SUCCEEDED'");
    const ratios = rounds.map((r) => r.refundsPerSecond / r.trivialPerSecond);
    emit({
      figure: 'refunds executed per second ÷ trivial workflows per second (median round)',
      ratio: round(median(ratios)),
      ratio_per_round: ratios.map((value) => round(value)),
      refunds_per_s: round(median(rounds.map((r) => r.refundsPerSecond))),
      trivial_per_s: round(median(rounds.map((r) => r.trivialPerSecond))),
      failed: {
        trivial: rounds.reduce((sum, r) => sum + r.failed.trivial, 0),
        refunds: rounds.reduce((sum, r) => sum + r.failed.refunds, 0),
      },
      gateway_refunds: gatewayRefunds,
      refunds_succeeded_in_the_shop: settled[0]?.n ?? 0,
      exactly_once: gatewayRefunds === (settled[0]?.n ?? -1),
      seconds: Math.round((performance.now() - benchStarted) / 1000),
    });
  } finally {
    await worker?.stop();
    await outbox?.stop();
    await connection?.close();
    await gateway?.close();
    await platform?.close();
    await Promise.all(servers.map((server) => server.dispose()));
  }
}
