// `npm start` alone, with no workflow engine: the api itself releases a stale reservation on the
// ExpireStaleReservations schedule, with the same pass the worker runs.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmitter, createLogger, loadConfig, openPlatform, outboxMetrics, startEmbeddedPostgres, type Platform } from '@shop/platform';
import { addCartLine, createCart } from '@shop/domain/carts';
import { createChannel, createProduct } from '@shop/domain/catalog';
import { placeOrder } from '@shop/domain/flows';
import { setStockOnHand } from '@shop/domain/inventory';
import { type DomainDeps } from '@shop/domain/kernel';
import { spawnService } from '../support/service-process.ts';
import { waitFor } from '../support/wait.ts';
import { ADDRESS } from '../../services/domain/test/support/commerce.ts';

const API_MAIN = path.resolve(import.meta.dirname, '../../services/api/src/main.ts');
const DATA_DIR = path.join('.data', 'pglite');
let workDir: string;

beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), 'shop-embedded-sweeps-'));
});

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

/** Runs `work` on the embedded database of `workDir`, as the api would open it, then closes it. */
async function withEmbeddedDatabase<T>(work: (platform: Platform) => Promise<T>): Promise<T> {
  const embedded = await startEmbeddedPostgres(path.join(workDir, DATA_DIR));
  const logger = createLogger({ level: 'ERROR', service: 'test' });
  const platform = await openPlatform(loadConfig({ NODE_ENV: 'test', DATABASE_URL: embedded.url, DATABASE_POOL_MAX: '1' }), logger, 'test');
  try {
    return await work(platform);
  } finally {
    await platform.close();
    await embedded.close();
  }
}

/** A guest order whose stock hold ran out a minute ago; returns its id and its product's. */
function staleOrder(platform: Platform): Promise<{ orderId: bigint; productId: bigint }> {
  const logger = createLogger({ level: 'ERROR', service: 'test' });
  const emitter = createEmitter({ mode: 'strict', logger, metrics: outboxMetrics(platform.metrics, platform.database.pool) });
  const deps: DomainDeps = { emit: emitter.emit, now: () => new Date(Date.now() - 31 * 60_000) };
  return emitter.transaction(platform.database.prisma, async (tx) => {
    const channel = await createChannel(tx, { code: 'web', name: 'Web', defaultCurrency: 'EUR' });
    const location = await tx.stockLocation.create({ data: { name: 'warehouse' } });
    const product = await createProduct(tx, deps, {
      sku: 'tee',
      name: 'Tee',
      slug: 'tee',
      price: '10.00',
      currency: 'EUR',
      channelIds: [channel.id],
    });
    await setStockOnHand(tx, deps, { productId: product.id, locationId: location.id, onHand: 3 });
    const shopper = { sessionId: 's-embedded' };
    const cart = await createCart(tx, deps, { channelId: channel.id, shopper });
    await addCartLine(tx, deps, { cartId: cart.id, shopper, productId: product.id, quantity: 2 });
    const order = await placeOrder(tx, deps, {
      cartId: cart.id,
      shopper,
      email: 'ada@example.com',
      billingAddress: ADDRESS,
      shippingAddress: ADDRESS,
    });
    return { orderId: order.id, productId: product.id };
  });
}

describe('npm start without a workflow engine', () => {
  it('expires a stale reservation in-process and says once what needs an engine', async () => {
    const { orderId, productId } = await withEmbeddedDatabase(staleOrder);

    const api = spawnService(API_MAIN, { PORT: '0' }, workDir);
    const url = await api.listening();
    const swept = 'workflow_sweep_rows_total{sweep="ExpireStaleReservationsWorkflow",what="reservations",service="api"} 1';
    await waitFor(async () => (await (await fetch(`${url}/metrics`)).text()).includes(swept), 30_000, 'the in-process sweep');
    const warnings = api.logLines().filter((line) => String(line.msg).startsWith('WORKFLOW_HOST is not set'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.msg).toContain('fulfilment window');
    api.child.kill('SIGTERM');
    expect((await api.exited()).code).toBe(0);

    await withEmbeddedDatabase(async (platform) => {
      const { prisma } = platform.database;
      expect(await prisma.order.findUniqueOrThrow({ where: { id: orderId } })).toMatchObject({
        status: 'CANCELLED',
        cancelReason: 'the stock hold expired before payment',
      });
      expect(await prisma.stockLevel.findFirstOrThrow({ where: { productId } })).toMatchObject({ onHand: 3, reserved: 0 });
      expect(await prisma.inventoryReservation.findFirstOrThrow({ where: { orderId } })).toMatchObject({ state: 'EXPIRED' });
    });
  });
});
