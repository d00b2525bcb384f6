// The money side on real PostgreSQL and the test gateway (a real HTTP server in its own process):
// checkouts paid by card (a cart tender authorized at the gateway, then the order's transaction takes
// it) against checkouts without payment (the order waits for staff to mark it paid), in alternating
// rounds of the same run, with a cost model of a card checkout's steps. Other money figures (refunds)
// are meant to join this file as further phases.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import {
  applyMigrations,
  createEmitter,
  createLogger,
  givenCredentials,
  HttpPaymentGateway,
  loadConfig,
  openPlatform,
  outboxMetrics,
  type PaymentGateway,
  type Platform,
  type RunTransaction,
} from '@shop/platform';
import { createChannel, createProduct } from '@shop/domain/catalog';
import { checkout, placeOrder, type PlaceOrderInput } from '@shop/domain/flows';
import { setStockOnHand } from '@shop/domain/inventory';
import { DomainError, type DomainDeps } from '@shop/domain/kernel';
import { markOrderPaid } from '@shop/domain/orders';
import { freePort } from '../test/infra/proc.ts';
import { startPostgres } from '../test/infra/servers.ts';
import { cpuSeconds } from './cpu.ts';
import { median, percentile, round } from './stats.ts';

const CHECKOUTS = Number(process.env.BENCH_CHECKOUTS ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Shoppers checking out at once, each starting its next checkout when the last one answered. */
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const WARM_UP_CHECKOUTS = 100;
/** Card checkouts one at a time for the cost model. */
const MODEL_CHECKOUTS = 100;
const PRODUCTS = 50;
const CARD_TO_PLAIN_GOAL = 0.5;
const GATEWAY_API_KEY = 'bench_money_gateway_key';
const GATEWAY_CLI = path.resolve(import.meta.dirname, '../tools/test-gateway/src/cli.ts');
const ADDRESS = { name: 'Ada Lovelace', line1: 'Main Street 1', postalCode: '10115', city: 'Berlin', countryCode: 'DE' };

function emit(figure: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ bench: 'money', ...figure })}\n`);
}

/** The test gateway in a process of its own on the shop's database, once it says where it listens. */
async function startGateway(databaseUrl: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [GATEWAY_CLI, `--port=${port}`], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, TEST_GATEWAY_DATABASE_URL: databaseUrl, TEST_GATEWAY_API_KEY: GATEWAY_API_KEY },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stdout.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /test gateway listening on (\S+)/.exec(seen);
      if (match?.[1]) {
        seen = '';
        resolve({ url: match[1], child });
      }
    });
    child.once('exit', (code) => reject(new Error(`the test gateway exited with ${code}`)));
  });
}

interface Shop {
  readonly transaction: RunTransaction;
  readonly deps: DomainDeps;
  readonly channelId: bigint;
  readonly productIds: readonly bigint[];
}

async function seedShop(platform: Platform): Promise<Shop> {
  const logger = createLogger({ level: 'ERROR', service: 'bench' });
  const emitter = createEmitter({ mode: 'warn', logger, metrics: outboxMetrics(platform.metrics, platform.database.pool) });
  const transaction: RunTransaction = (work, options) => emitter.transaction(platform.database.prisma, work, options);
  const deps: DomainDeps = { emit: emitter.emit, now: () => new Date() };
  return transaction(async (tx) => {
    const channel = await createChannel(tx, { code: 'web', name: 'Web', defaultCurrency: 'EUR' });
    const location = await tx.stockLocation.create({ data: { name: 'warehouse' } });
    const productIds: bigint[] = [];
    for (let n = 0; n < PRODUCTS; n += 1) {
      const product = await createProduct(tx, deps, {
        sku: `tee-${n}`,
        name: `Tee ${n}`,
        slug: `tee-${n}`,
        price: `${10 + n}.90`,
        currency: 'EUR',
        channelIds: [channel.id],
      });
      await setStockOnHand(tx, deps, { productId: product.id, locationId: location.id, onHand: 10_000_000 });
      productIds.push(product.id);
    }
    return { transaction, deps, channelId: channel.id, productIds };
  });
}

/** `count` guest carts of two lines each, written in bulk before any clock starts. */
async function carts(platform: Platform, shop: Shop, count: number): Promise<Cart[]> {
  const sessions = Array.from({ length: count }, () => `s-${randomUUID()}`);
  const { rows } = await platform.database.pool.query<{ id: string; session_id: string }>(
    `INSERT INTO carts (channel_id, session_id, currency, expires_at, updated_at)
     SELECT $1, s, 'EUR', now() + interval '1 day', now() FROM unnest($2::text[]) AS s RETURNING id, session_id`,
    [shop.channelId.toString(), sessions],
  );
  const products = shop.productIds.map(String);
  await platform.database.pool.query(
    `INSERT INTO cart_lines (cart_id, product_id, quantity, unit_price, updated_at)
     SELECT c.id, p.id, 1 + (c.id % 3)::int, p.price, now()
       FROM unnest($1::bigint[]) AS c(id)
       CROSS JOIN LATERAL (VALUES (($2::bigint[])[(1 + c.id % $3)::int]), (($2::bigint[])[(1 + (c.id * 7 + 3) % $3)::int])) AS pick(product_id)
       JOIN products p ON p.id = pick.product_id
     ON CONFLICT (cart_id, product_id) DO NOTHING`,
    [rows.map((row) => row.id), products, products.length],
  );
  return rows.map((row) => ({ cartId: BigInt(row.id), sessionId: row.session_id }));
}

const orderInput = (cart: Cart, card: boolean): PlaceOrderInput => ({
  cartId: cart.cartId,
  shopper: { sessionId: cart.sessionId },
  email: 'ada@example.com',
  billingAddress: ADDRESS,
  shippingAddress: ADDRESS,
  ...(card ? { idempotencyKey: randomUUID(), card: { token: `tok_${cart.cartId}` } } : {}),
});

interface Phase {
  readonly ok: number;
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Refusals by code and message: not counted as checkouts. */
  readonly refused: Record<string, number>;
  readonly cpuMsPerCheckout: Record<string, number>;
}

type Pids = Readonly<Record<string, number | undefined>>;

type Cart = { cartId: bigint; sessionId: string };

/** How a phase checks a cart out. */
type Place = (cart: Cart) => Promise<unknown>;

/** Every cart checked out by CONCURRENCY shoppers; only orders placed count. */
async function checkoutPhase(list: readonly Cart[], place: Place, pids: Pids): Promise<Phase> {
  const latencies: number[] = [];
  const refused: Record<string, number> = {};
  let next = 0;
  const before = await cpuSeconds(pids);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let mine = next++; mine < list.length; mine = next++) {
        const begun = performance.now();
        try {
          await place(list[mine] as Cart);
          latencies.push(performance.now() - begun);
        } catch (error) {
          const what = error instanceof DomainError ? `${error.code}: ${error.message}` : String(error);
          refused[what] = (refused[what] ?? 0) + 1;
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const after = await cpuSeconds(pids);
  const sorted = latencies.sort((a, b) => a - b);
  const ok = sorted.length;
  return {
    ok,
    perSecond: ok / seconds,
    p50Ms: round(percentile(sorted, 50), 1),
    p99Ms: round(percentile(sorted, 99), 1),
    refused,
    cpuMsPerCheckout: Object.fromEntries(
      Object.keys(after).map((name) => [name, round((((after[name] ?? 0) - (before[name] ?? 0)) * 1000) / Math.max(1, ok), 2)]),
    ),
  };
}

/** The order placed without payment and marked paid in the same transaction, as staff would mark it: a card checkout's order without the card. */
const placeMarkedPaid =
  (shop: Shop): Place =>
  (cart) =>
    shop.transaction(async (tx) => markOrderPaid(tx, shop.deps, (await placeOrder(tx, shop.deps, orderInput(cart, false))).id));

/**
 * Where a card checkout's time goes, one checkout at a time: each transaction it runs and the
 * gateway's authorization, timed from outside (a transaction runner and a gateway that time what
 * they pass on), beside a checkout without payment.
 */
async function costModel(platform: Platform, shop: Shop, gateway: PaymentGateway): Promise<void> {
  const steps: number[][] = [];
  let current: number[] = [];
  const timedTransaction: RunTransaction = async (work, options) => {
    const begun = performance.now();
    try {
      return await shop.transaction(work, options);
    } finally {
      current.push(performance.now() - begun);
    }
  };
  const authorizeMs: number[] = [];
  const timedGateway: PaymentGateway = {
    capture: (request) => gateway.capture(request),
    void: (request) => gateway.void(request),
    refund: (request) => gateway.refund(request),
    lookUp: (key) => gateway.lookUp(key),
    authorize: async (request) => {
      const begun = performance.now();
      try {
        return await gateway.authorize(request);
      } finally {
        authorizeMs.push(performance.now() - begun);
      }
    },
  };
  const paying = { ...shop.deps, gateway: timedGateway };
  const timed = async (totals: number[], place: () => Promise<unknown>) => {
    const begun = performance.now();
    await place();
    totals.push(performance.now() - begun);
  };
  const [forCard, forPlain, forPaid] = [
    await carts(platform, shop, MODEL_CHECKOUTS),
    await carts(platform, shop, MODEL_CHECKOUTS),
    await carts(platform, shop, MODEL_CHECKOUTS),
  ];
  const cardTotals: number[] = [];
  const plainTotals: number[] = [];
  // What paying costs the order's transaction whatever pays: the same order marked paid in it, as a card's tender does.
  const paidTotals: number[] = [];
  // One of each in turn, so that the three see the same load on a shared machine.
  for (let n = 0; n < MODEL_CHECKOUTS; n += 1) {
    current = [];
    await timed(cardTotals, () => checkout(timedTransaction, paying, orderInput(forCard[n] as Cart, true)));
    steps.push(current);
    await timed(plainTotals, () => checkout(shop.transaction, shop.deps, orderInput(forPlain[n] as Cart, false)));
    await timed(paidTotals, () => placeMarkedPaid(shop)(forPaid[n] as Cart));
  }
  const p50 = (values: readonly number[]) => round(median(values), 2);
  const paid = p50(paidTotals);
  const step = (index: number) => p50(steps.map((run) => run[index] ?? Number.NaN));
  const card = p50(cardTotals);
  const plain = p50(plainTotals);
  const authorize = p50(authorizeMs);
  emit({
    figure: 'cost model: one checkout at a time, median ms',
    checkouts_each: MODEL_CHECKOUTS,
    without_payment_ms: plain,
    without_payment_marked_paid_in_the_same_transaction_ms: paid,
    with_card_ms: card,
    card_steps_ms: {
      what_to_authorize_transaction: step(0),
      gateway_authorize_round_trip: authorize,
      tender_transaction: step(1),
      order_transaction: step(2),
    },
    card_minus_plain_ms: round(card - plain, 2),
    of_which_marking_paid_ms: round(paid - plain, 2),
    of_which_gateway_ms: authorize,
    of_which_cart_tender_steps_ms: round(card - paid - authorize, 2),
    ratio_if_latency_bound: round(plain / card, 2),
    // Even with cart tenders free, a card checkout pays the order and waits for the gateway.
    ratio_floor_from_paying_and_the_gateway: round(plain / (paid + authorize), 2),
  });
}

export async function benchMoney(): Promise<void> {
  const postgres = await startPostgres();
  let platform: Platform | undefined;
  let gatewayProcess: ChildProcess | undefined;
  try {
    await applyMigrations(postgres.url);
    platform = await openPlatform(
      loadConfig({ NODE_ENV: 'test', DATABASE_URL: postgres.url }),
      createLogger({ level: 'ERROR', service: 'bench' }),
      'bench',
    );
    const started = await startGateway(postgres.url);
    gatewayProcess = started.child;
    const gateway = new HttpPaymentGateway({ baseUrl: started.url, credentials: givenCredentials(GATEWAY_API_KEY) });
    const shop = await seedShop(platform);
    const paying: DomainDeps = { ...shop.deps, gateway };
    const pids = { postgres: postgres.pid(), gateway: gatewayProcess.pid };
    emit({
      figure: 'setup',
      cores: availableParallelism(),
      checkouts_per_round: CHECKOUTS,
      rounds: ROUNDS,
      concurrency: CONCURRENCY,
      products: PRODUCTS,
      lines_per_cart: 2,
    });

    const withoutPayment: Place = (cart) => checkout(shop.transaction, shop.deps, orderInput(cart, false));
    const byCard: Place = (cart) => checkout(shop.transaction, paying, orderInput(cart, true));
    for (const place of [byCard, withoutPayment, placeMarkedPaid(shop)])
      await checkoutPhase(await carts(platform, shop, WARM_UP_CHECKOUTS), place, pids);
    const plain: Phase[] = [];
    const markedPaid: Phase[] = [];
    const card: Phase[] = [];
    for (let pass = 0; pass < ROUNDS; pass += 1) {
      plain.push(await checkoutPhase(await carts(platform, shop, CHECKOUTS), withoutPayment, pids));
      markedPaid.push(await checkoutPhase(await carts(platform, shop, CHECKOUTS), placeMarkedPaid(shop), pids));
      card.push(await checkoutPhase(await carts(platform, shop, CHECKOUTS), byCard, pids));
    }
    const ratios = (phases: readonly Phase[], to: readonly Phase[]) =>
      phases.map((phase, i) => phase.perSecond / (to[i] as Phase).perSecond);
    const figure = (target: string, phases: readonly Phase[]) => ({
      target,
      checkouts_per_s: round(median(phases.map((phase) => phase.perSecond)), 1),
      checkouts_per_s_per_round: phases.map((phase) => round(phase.perSecond, 1)),
      placed_per_round: phases.map((phase) => phase.ok),
      p50_ms_per_round: phases.map((phase) => phase.p50Ms),
      p99_ms_per_round: phases.map((phase) => phase.p99Ms),
      refused: phases.map((phase) => phase.refused),
      cpu_ms_per_checkout_last_round: phases.at(-1)?.cpuMsPerCheckout,
    });
    emit(figure('checkout without payment (the order waits for staff to mark it paid)', plain));
    emit({
      ...figure('checkout without payment, marked paid in the same transaction (what paying costs, without a gateway)', markedPaid),
      ratio_to_without_payment: round(median(ratios(markedPaid, plain))),
    });
    const ratio = round(median(ratios(card, plain)));
    // The rate both cores would allow if they did nothing else: the servers' and this process's CPU per checkout, summed.
    const cpuPerCheckout = (phases: readonly Phase[]) =>
      ['client', 'postgres', 'gateway'].reduce((sum, name) => sum + (phases.at(-1)?.cpuMsPerCheckout[name] ?? 0), 0);
    emit({
      ...figure('checkout with a card tender (authorized at the test gateway, then taken by the order)', card),
      ratio_to_without_payment: ratio,
      ratio_per_round: ratios(card, plain).map((value) => round(value)),
      ratio_to_marked_paid: round(median(ratios(card, markedPaid))),
      ratio_if_cpu_bound_last_round: round(cpuPerCheckout(plain) / cpuPerCheckout(card)),
      goal_ratio: CARD_TO_PLAIN_GOAL,
      meets_goal: ratio >= CARD_TO_PLAIN_GOAL,
    });
    await costModel(platform, shop, gateway);
  } finally {
    gatewayProcess?.kill('SIGTERM');
    await platform?.close();
    await postgres.dispose();
  }
}
