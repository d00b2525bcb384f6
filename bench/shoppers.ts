// Virtual shoppers for the storefront benchmark: each one browses, views products, fills a cart and
// places an order over POST /graphql, as a storefront would. Driven closed-loop (a fixed number of
// shoppers, each sending its next request when the last one answered) or open-loop (requests start
// at a fixed rate whatever the answers do; latency counts from the scheduled start).
import http from 'node:http';
import { percentile, round } from './stats.ts';

export const OPERATIONS = ['startSession', 'browse', 'view', 'createCart', 'addCartLine', 'placeOrder'] as const;
export type Operation = (typeof OPERATIONS)[number];

/**
 * One visit: a guest session from the api (the storefront's session cookie, set when a visitor
 * arrives), then 10 browse : 5 view : 1 create cart : 2 add : 1 order, interleaved as a visit goes
 * (look around, open a product, put it in the cart, look further, check out).
 */
export const VISIT: readonly Operation[] = [
  'startSession',
  'browse',
  'browse',
  'view',
  'browse',
  'browse',
  'view',
  'createCart',
  'addCartLine',
  'browse',
  'browse',
  'view',
  'browse',
  'browse',
  'view',
  'addCartLine',
  'browse',
  'browse',
  'view',
  'placeOrder',
];

/** What the shoppers pick from: discovered through the api before the clock starts. */
export interface Catalog {
  readonly products: readonly { id: string; slug: string }[];
  readonly categoryIds: readonly string[];
  readonly brandIds: readonly string[];
  /** An after cursor for a second page of `first: 4`. */
  readonly secondPageCursor: string;
}

const PRODUCT_CARD = 'id sku name slug price currency brand { name } available';
const BROWSE = `query Browse($first: Int, $after: String, $categoryId: ID, $brandId: ID, $search: String) {
  products(first: $first, after: $after, categoryId: $categoryId, brandId: $brandId, search: $search) {
    nodes { ${PRODUCT_CARD} categories { slug } }
    pageInfo { endCursor hasNextPage }
  }
}`;
const VIEW = `query View($slug: String) {
  product(slug: $slug) { ${PRODUCT_CARD} description active categories { id name slug parent { name slug } } }
}`;
const CART_FIELDS =
  'id currency itemCount subtotal shipping tax total lines { productId quantity unitPrice lineTotal product { name slug } }';
const START_SESSION = 'mutation StartGuestSession { startGuestSession }';
const CREATE_CART = `mutation CreateCart { createCart { ${CART_FIELDS} } }`;
const ADD_LINE = `mutation AddLine($cartId: ID!, $productId: ID!, $quantity: Int!) {
  addCartLine(cartId: $cartId, productId: $productId, quantity: $quantity) { ${CART_FIELDS} }
}`;
const PLACE_ORDER = `mutation PlaceOrder($input: PlaceOrderInput!) {
  placeOrder(input: $input) { id number status currency subtotal shipping tax total lines { sku quantity lineTotal } }
}`;
const ADDRESS = { name: 'Ada Lovelace', line1: 'Main Street 1', postalCode: '10115', city: 'Berlin', countryCode: 'DE' };
const SEARCHES = ['tee', 'hoodie', 'cap', 'BAG'];

/** mulberry32: the same shoppers do the same things in every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export interface Sample {
  readonly operation: Operation;
  readonly ms: number;
  readonly ok: boolean;
}

export interface GraphqlClient {
  post(body: string, sessionId: string): Promise<{ status: number; body: string }>;
  close(): void;
}

/** Keep-alive connections to the api; the channel header on every request, the session once the api issued one. */
export function graphqlClient(baseUrl: string): GraphqlClient {
  const url = new URL('/graphql', baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });
  return {
    post(body, sessionId) {
      return new Promise((resolve, reject) => {
        const request = http.request(
          url,
          {
            method: 'POST',
            agent,
            headers: {
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(body),
              'x-channel-id': 'web',
              ...(sessionId === '' ? {} : { 'x-session-id': sessionId }),
            },
          },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
            response.on('error', reject);
          },
        );
        request.on('error', reject);
        request.end(body);
      });
    },
    close: () => agent.destroy(),
  };
}

let visits = 0;

/** One shopper: walks VISIT step by step, and starts a new visit (a new guest session) after the order. */
export class Shopper {
  readonly #client: GraphqlClient;
  readonly #catalog: Catalog;
  readonly #random: () => number;
  #step = 0;
  #sessionId = '';
  #visit = 0;
  #cartId: string | undefined;
  busy = false;

  constructor(client: GraphqlClient, catalog: Catalog, seed: number) {
    this.#client = client;
    this.#catalog = catalog;
    this.#random = random(seed);
    this.#newVisit();
  }

  #newVisit(): void {
    visits += 1;
    this.#visit = visits;
    this.#sessionId = '';
    this.#step = 0;
    this.#cartId = undefined;
  }

  #pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.#random() * items.length)] as T;
  }

  #body(operation: Operation): string {
    const catalog = this.#catalog;
    switch (operation) {
      case 'startSession':
        return JSON.stringify({ query: START_SESSION });
      case 'browse': {
        // The front page, a category, a brand, a search, the next page: as a storefront's listings vary.
        const kind = this.#random();
        const variables =
          kind < 0.3
            ? { first: 20 }
            : kind < 0.6
              ? { first: 20, categoryId: this.#pick(catalog.categoryIds) }
              : kind < 0.75
                ? { first: 20, brandId: this.#pick(catalog.brandIds) }
                : kind < 0.9
                  ? { first: 20, search: this.#pick(SEARCHES) }
                  : { first: 4, after: catalog.secondPageCursor };
        return JSON.stringify({ query: BROWSE, variables });
      }
      case 'view':
        return JSON.stringify({ query: VIEW, variables: { slug: this.#pick(catalog.products).slug } });
      case 'createCart':
        return JSON.stringify({ query: CREATE_CART });
      case 'addCartLine':
        return JSON.stringify({
          query: ADD_LINE,
          variables: { cartId: this.#cartId, productId: this.#pick(catalog.products).id, quantity: 1 + Math.floor(this.#random() * 2) },
        });
      case 'placeOrder':
        return JSON.stringify({
          query: PLACE_ORDER,
          variables: { input: { cartId: this.#cartId, email: `bench-${process.pid}-${this.#visit}@shop.test`, billingAddress: ADDRESS } },
        });
    }
  }

  /**
   * Moves to `step` of the visit before the clock starts, sending only what the cart needs there
   * (create it, add the lines), so that shoppers spread over the visit give the mix from the first second.
   */
  async skipTo(step: number): Promise<void> {
    while (this.#step < step) {
      const operation = VISIT[this.#step];
      if (operation === 'browse' || operation === 'view') this.#step += 1;
      else if (!(await this.next()).ok) return;
    }
  }

  /** Sends the next request of the visit; `startedAt` is when it was due (open loop) or sent (closed loop). */
  async next(startedAt = performance.now()): Promise<Sample> {
    const operation = VISIT[this.#step] as Operation;
    this.busy = true;
    let ok = false;
    try {
      const response = await this.#client.post(this.#body(operation), this.#sessionId);
      ok = response.status === 200 && !response.body.includes('"errors":');
      if (ok && operation === 'startSession')
        this.#sessionId = (JSON.parse(response.body) as { data: { startGuestSession: string } }).data.startGuestSession;
      if (ok && operation === 'createCart')
        this.#cartId = (JSON.parse(response.body) as { data: { createCart: { id: string } } }).data.createCart.id;
      if (!ok) failures.record(operation, response.status, response.body);
    } catch (error) {
      failures.record(operation, 0, error instanceof Error ? error.message : String(error));
    } finally {
      this.busy = false;
    }
    const ms = performance.now() - startedAt;
    // A failed step of the cart ends the visit: the next one starts from the beginning with a new session.
    if (!ok && operation !== 'browse' && operation !== 'view') this.#newVisit();
    else if (this.#step === VISIT.length - 1) this.#newVisit();
    else this.#step += 1;
    return { operation, ms, ok };
  }
}

/** The first failure of each operation, for the report: a benchmark of errors measures nothing. */
export const failures = {
  first: new Map<Operation, string>(),
  record(operation: Operation, status: number, detail: string): void {
    if (!this.first.has(operation)) this.first.set(operation, `${status} ${detail.slice(0, 300)}`);
  },
};

export interface OperationStats {
  readonly count: number;
  readonly errors: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

export interface PhaseResult {
  readonly seconds: number;
  readonly requests: number;
  readonly errors: number;
  readonly reqPerSec: number;
  readonly ordersPerSec: number;
  /** The most requests in flight at once (open loop: the shoppers the arrivals needed). */
  readonly maxInFlight: number;
  /**
   * Open loop: how late the generator sent requests after they were due (its own event loop delay,
   * or the machine not scheduling it). Counted in every latency; reported so it can be told apart.
   */
  readonly sendLag?: { readonly p50Ms: number; readonly p99Ms: number; readonly maxMs: number };
  readonly all: OperationStats;
  readonly byOperation: Readonly<Record<Operation, OperationStats>>;
}

const round1 = (value: number) => round(value, 1);

function stats(samples: readonly Sample[]): OperationStats {
  const sorted = samples.map((sample) => sample.ms).sort((a, b) => a - b);
  return {
    count: samples.length,
    errors: samples.filter((sample) => !sample.ok).length,
    p50Ms: round1(percentile(sorted, 50)),
    p95Ms: round1(percentile(sorted, 95)),
    p99Ms: round1(percentile(sorted, 99)),
    maxMs: round1(sorted.at(-1) ?? Number.NaN),
  };
}

function lagStats(lags: number[]): NonNullable<PhaseResult['sendLag']> {
  const sorted = lags.sort((a, b) => a - b);
  return { p50Ms: round1(percentile(sorted, 50)), p99Ms: round1(percentile(sorted, 99)), maxMs: round1(sorted.at(-1) ?? Number.NaN) };
}

function summarize(samples: readonly Sample[], seconds: number, maxInFlight: number, lags?: number[]): PhaseResult {
  const byOperation = Object.fromEntries(
    OPERATIONS.map((operation) => [operation, stats(samples.filter((sample) => sample.operation === operation))]),
  ) as Record<Operation, OperationStats>;
  const errors = samples.filter((sample) => !sample.ok).length;
  return {
    seconds: round1(seconds),
    requests: samples.length,
    errors,
    // Only answers that succeeded are throughput; the failed ones are in `errors`.
    reqPerSec: Math.round((samples.length - errors) / seconds),
    ordersPerSec: round1(samples.filter((sample) => sample.operation === 'placeOrder' && sample.ok).length / seconds),
    maxInFlight,
    ...(lags === undefined ? {} : { sendLag: lagStats(lags) }),
    all: stats(samples),
    byOperation,
  };
}

/** `concurrency` shoppers spread over the visit, each sending its next request as soon as the last one answered. */
export async function closedLoop(
  client: GraphqlClient,
  catalog: Catalog,
  concurrency: number,
  seconds: number,
  seed = 1,
): Promise<PhaseResult> {
  const shoppers = Array.from({ length: concurrency }, (_, i) => new Shopper(client, catalog, seed * 100_003 + i));
  await Promise.all(shoppers.map((shopper, i) => shopper.skipTo(Math.floor((i * VISIT.length) / concurrency))));
  const samples: Sample[] = [];
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    shoppers.map(async (shopper) => {
      while (performance.now() < deadline) samples.push(await shopper.next());
    }),
  );
  return summarize(samples, (performance.now() - started) / 1000, concurrency);
}

/**
 * Requests start at `ratePerSecond`, evenly spaced, for `seconds`, whatever the answers do: each
 * arrival goes to an idle shopper (a new one when all are waiting), which sends its next step. The
 * latency of a request counts from when it was due, so a stalled client or server shows up in it.
 */
export async function openLoop(
  client: GraphqlClient,
  catalog: Catalog,
  ratePerSecond: number,
  seconds: number,
  seed = 2,
): Promise<PhaseResult> {
  const shoppers: Shopper[] = [];
  const samples: Sample[] = [];
  const pending = new Set<Promise<void>>();
  const lags: number[] = [];
  const interval = 1000 / ratePerSecond;
  const total = Math.round(ratePerSecond * seconds);
  let maxInFlight = 0;
  const started = performance.now();
  for (let sent = 0; sent < total;) {
    const now = performance.now();
    while (sent < total && started + sent * interval <= now) {
      const due = started + sent * interval;
      const shopper =
        shoppers.find((candidate) => !candidate.busy) ??
        shoppers[shoppers.push(new Shopper(client, catalog, seed * 100_003 + shoppers.length)) - 1];
      lags.push(performance.now() - due);
      const request = (shopper as Shopper).next(due).then((sample) => {
        samples.push(sample);
        pending.delete(request);
      });
      pending.add(request);
      maxInFlight = Math.max(maxInFlight, pending.size);
      sent += 1;
    }
    const wait = started + sent * interval - performance.now();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.floor(wait))));
  }
  const sendSeconds = (performance.now() - started) / 1000;
  await Promise.all(pending);
  return summarize(samples, Math.max(seconds, sendSeconds), maxInFlight, lags);
}

/** GET `url` from `concurrency` loops on the same kind of client as the shoppers: the client's own ceiling, in 2xx answers per second. */
export async function clientCeiling(url: string, concurrency: number, seconds: number): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });
  const get = () =>
    new Promise<boolean>((resolve, reject) => {
      http
        .get(url, { agent }, (response) => {
          response.on('data', () => undefined);
          response.on('end', () => resolve((response.statusCode ?? 0) >= 200 && (response.statusCode ?? 0) < 300));
          response.on('error', reject);
        })
        .on('error', reject);
    });
  let count = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        // Only 2xx answers are throughput.
        if (await get()) count += 1;
      }
    }),
  );
  agent.destroy();
  return Math.round(count / ((performance.now() - started) / 1000));
}
