// A shop on a database of the test file's own, wired to the shared Temporal server in a namespace of
// its own: domain operations in the test process, the api's workflow triggers on an outbox dispatcher
// here (the real path from a committed event to Temporal), and worker processes started on demand.
import path from 'node:path';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time.js';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { inject } from 'vitest';
import {
  GATEWAY_API_KEY_SECRET,
  givenCredentials,
  HttpPaymentGateway,
  setStoredSecret,
  startOutbox,
  type Prisma,
  type RunningOutbox,
} from '@shop/platform';
import { addCartLine, createCart } from '@shop/domain/carts';
import { placeOrder } from '@shop/domain/flows';
import { type DomainDeps } from '@shop/domain/kernel';
import { type OrderWithLines } from '@shop/domain/orders';
import { DEFAULT_CHECKOUT_SETTINGS } from '@shop/domain/settings';
import { createTestNamespace } from '../infra/isolation.ts';
import { spawnService, type ServiceProcess } from './service-process.ts';
import { waitFor } from './wait.ts';
import { ADDRESS, openCommerce, seedCatalog, type Catalog, type Commerce } from '../../services/domain/test/support/commerce.ts';
import { TemporalWorkflowEngine } from '../../services/api/src/workflows/temporal-engine.ts';
import { workflowTriggers } from '../../services/api/src/workflows/workflow-triggers.ts';
import { saveHistory } from '../../services/worker/test/support/histories.ts';
import { migrateRepositoryExtensions } from './extensions.ts';
import { startTestGateway, TestGatewayControl } from '../../tools/test-gateway/src/index.ts';

export const WORKER_MAIN = path.resolve(import.meta.dirname, '../../services/worker/src/main.ts');

export interface WorkflowShop {
  readonly commerce: Commerce;
  readonly catalog: Catalog;
  readonly client: Client;
  readonly namespace: string;
  readonly databaseUrl: string;
  /** The domain's dependencies on the real clock (the workflows run on it too, except on a time-skipping server). */
  readonly deps: DomainDeps;
  transaction<T>(work: (tx: Prisma.TransactionClient) => Promise<T>): Promise<T>;
  /** A worker process on this shop's database and namespace (not on a time-skipping environment: it creates Schedules). */
  startWorker(env?: NodeJS.ProcessEnv): Promise<RunningWorker>;
  /**
   * An order of `quantity` units of a new product with `onHand` units, its hold running out `holdMs`
   * from now: placed on a clock moved back by the hold's window (`windowMs`, the payment window by default).
   */
  placeOrder(options: {
    sku: string;
    quantity?: number;
    onHand?: number;
    holdMs: number;
    windowMs?: number;
    customerId?: bigint;
  }): Promise<{ order: OrderWithLines; productId: bigint }>;
  /** The workflow's handle once it has started (the outbox starts it shortly after the commit). */
  started(workflowId: string): Promise<WorkflowHandle>;
  /** Keeps the finished run's history for the replay test (only under `npm run workflows:record-histories`). */
  saveHistory(workflowId: string, workflowType: string, scenario: string): Promise<void>;
  /** Writes a settings key (e.g. `workflows` with short windows). */
  setSetting(key: string, value: Prisma.InputJsonObject): Promise<void>;
  close(): Promise<void>;
}

export interface RunningWorker {
  readonly process: ServiceProcess;
  readonly url: string;
  /** SIGTERM, and the exit code. */
  stop(): Promise<number | null>;
}

// The checkout settings' defaults: these tests leave the `checkout` setting alone.
export const PAYMENT_WINDOW_MS = DEFAULT_CHECKOUT_SETTINGS.paymentWindowMinutes * 60_000;
export const APPROVAL_WINDOW_MS = DEFAULT_CHECKOUT_SETTINGS.approvalWindowHours * 60 * 60_000;

export interface WorkflowShopOptions {
  /** A Temporal server of the test's own (one it stops and starts), instead of the shared one. */
  readonly temporalAddress?: string;
  /** Temporal's time-skipping test server (`timeSkippingEnv()`) instead of a server: its client, in its `default` namespace. */
  readonly timeSkipping?: TestWorkflowEnvironment;
  /** The outbox's runs of a listener before its delivery is parked. */
  readonly maxAttempts?: number;
}

interface ShopClient {
  readonly client: Client;
  readonly namespace: string;
  /** The shop's own, closed with it. */
  readonly connection?: Connection;
}

async function namespaceOfItsOwn(name: string, address: string): Promise<ShopClient> {
  const namespace = await createTestNamespace(name, address);
  const connection = await Connection.connect({ address });
  return { client: new Client({ connection, namespace }), namespace, connection };
}

/** The test server has one namespace and registers no other; the environment's teardown closes its connection. */
function environmentClient(env: TestWorkflowEnvironment): ShopClient {
  return { client: env.client, namespace: env.namespace ?? 'default' };
}

export async function openWorkflowShop(
  name: string,
  { temporalAddress = inject('temporalAddress'), timeSkipping, maxAttempts }: WorkflowShopOptions = {},
): Promise<WorkflowShop> {
  const commerce = await openCommerce(name);
  const databaseUrl = commerce.platform.config.databaseUrl ?? '';
  await migrateRepositoryExtensions(databaseUrl);
  const catalog = await seedCatalog(commerce, name);
  const { client, namespace, connection } =
    timeSkipping === undefined ? await namespaceOfItsOwn(name, temporalAddress) : environmentClient(timeSkipping);
  const outbox: RunningOutbox = startOutbox(commerce.platform, {
    listeners: workflowTriggers(new TemporalWorkflowEngine(client)),
    idleMs: 20,
    maxAttempts,
  });
  const workers: RunningWorker[] = [];
  let orders = 0;
  const deps: DomainDeps = { emit: commerce.deps.emit, now: () => new Date() };

  const shop: WorkflowShop = {
    commerce,
    catalog,
    client,
    namespace,
    databaseUrl,
    deps,
    transaction: (work) => commerce.transaction(work),
    async startWorker(env = {}) {
      if (timeSkipping !== undefined)
        throw new Error('a worker process creates Schedules, which the time-skipping test server does not have');
      const process = spawnService(WORKER_MAIN, {
        NODE_ENV: 'test',
        LOG_LEVEL: 'INFO',
        DATABASE_URL: databaseUrl,
        WORKFLOW_HOST: temporalAddress,
        WORKFLOW_NAMESPACE: namespace,
        WORKER_PORT: '0',
        SHUTDOWN_TIMEOUT_MS: '5000',
        ...env,
      });
      const url = await process.listening(90_000);
      const worker: RunningWorker = {
        process,
        url,
        async stop() {
          if (process.child.exitCode === null && process.child.signalCode === null) process.child.kill('SIGTERM');
          return (await process.exited()).code;
        },
      };
      workers.push(worker);
      return worker;
    },
    async placeOrder({ sku, quantity = 1, onHand = 5, holdMs, windowMs = PAYMENT_WINDOW_MS, customerId }) {
      orders += 1;
      const productId = await catalog.product(sku, '10.00', onHand);
      const sessionId = `s-${name}-${orders}`;
      const shopper = customerId === undefined ? { sessionId } : { customerId, sessionId };
      const placedOn: DomainDeps = { emit: deps.emit, now: () => new Date(Date.now() - windowMs + holdMs) };
      const order = await commerce.transaction(async (tx) => {
        const cart = await createCart(tx, placedOn, { channelId: catalog.channelId, shopper });
        await addCartLine(tx, placedOn, { cartId: cart.id, shopper, productId, quantity });
        return placeOrder(tx, placedOn, {
          cartId: cart.id,
          shopper,
          email: 'ada@example.com',
          billingAddress: ADDRESS,
          shippingAddress: ADDRESS,
        });
      });
      return { order, productId };
    },
    async started(workflowId) {
      const handle = client.workflow.getHandle(workflowId);
      await waitFor(
        () =>
          handle.describe().then(
            () => true,
            () => false,
          ),
        30_000,
        `${workflowId} to start`,
      );
      return handle;
    },
    saveHistory: (workflowId, workflowType, scenario) => saveHistory(client, workflowId, workflowType, scenario),
    async setSetting(key, value) {
      await commerce.platform.database.prisma.setting.upsert({ where: { key }, create: { key, value }, update: { value } });
    },
    async close() {
      await Promise.allSettled(workers.map((worker) => worker.stop()));
      await outbox.stop();
      await connection?.close();
      await commerce.close();
    },
  };
  return shop;
}

/** A run's timers as its history has them, for tests that show what a timer did without waiting it out. */
export interface RunTimers {
  /** Each timer the run started, in order, as it stands: still running, fired or cancelled. */
  readonly timers: ('running' | 'fired' | 'cancelled')[];
  /** Its last workflow task asked for nothing more: with no timer running, only a signal can move it. */
  readonly idle: boolean;
  /** When each timer that fired did, in order, on the server's clock (ms since the epoch). */
  readonly firedAt: number[];
}

export async function runTimers(handle: WorkflowHandle): Promise<RunTimers> {
  const events = (await handle.fetchHistory()).events ?? [];
  const timers = new Map<string, RunTimers['timers'][number]>();
  const firedAt: number[] = [];
  for (const event of events) {
    if (event.timerStartedEventAttributes) timers.set(event.timerStartedEventAttributes.timerId ?? '', 'running');
    if (event.timerFiredEventAttributes) {
      timers.set(event.timerFiredEventAttributes.timerId ?? '', 'fired');
      firedAt.push(tsToMs(event.eventTime));
    }
    if (event.timerCanceledEventAttributes) timers.set(event.timerCanceledEventAttributes.timerId ?? '', 'cancelled');
  }
  return { timers: [...timers.values()], idle: events.at(-1)?.workflowTaskCompletedEventAttributes != null, firedAt };
}

/** The test gateway on a shop's database, its API key stored as the shop's gateway secret. */
export interface ShopGateway {
  readonly url: string;
  /** Its faults, clock and logs. */
  readonly control: TestGatewayControl;
  /** The shop's client of it, for domain calls made in the test process; a worker started with PAYMENT_GATEWAY_URL makes its own. */
  readonly cards: HttpPaymentGateway;
  close(): Promise<void>;
}

export async function openShopGateway(shop: WorkflowShop, apiKey: string): Promise<ShopGateway> {
  const gateway = await startTestGateway({ databaseUrl: shop.databaseUrl, apiKey });
  const { prisma } = shop.commerce.platform.database;
  await setStoredSecret(prisma, shop.commerce.platform.masterKeys, {
    key: GATEWAY_API_KEY_SECRET,
    value: apiKey,
    setAt: new Date(),
    setByStaffUserId: null,
  });
  return {
    url: gateway.url,
    control: new TestGatewayControl(gateway.url, apiKey),
    cards: new HttpPaymentGateway({ baseUrl: gateway.url, credentials: givenCredentials(apiKey) }),
    close: () => gateway.close(),
  };
}
