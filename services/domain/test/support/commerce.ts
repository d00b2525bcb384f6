import { expect, inject } from 'vitest';
import {
  applyMigrations,
  createEmitter,
  createLogger,
  loadConfig,
  openPlatform,
  outboxMetrics,
  validateEvent,
  type EventName,
  type Platform,
  type Prisma,
  type TransactionOptions,
} from '@shop/platform';
import { createTestDatabase, type TestDatabase } from '../../../../test/infra/isolation.ts';
import { closeAfterAudit } from '../../../../test/support/money-audit.ts';
import type { DomainDeps } from '../../src/kernel/context.ts';
import { DomainError } from '../../src/kernel/domain-error.ts';
import { createBrand, createCategory, createChannel, createProduct } from '../../src/catalog/catalog-admin.ts';
import { setStockOnHand } from '../../src/inventory/stock.ts';

export interface Commerce {
  readonly platform: Platform;
  readonly deps: DomainDeps;
  /** Moves the domain's clock. */
  setNow(date: Date): void;
  transaction<T>(work: (tx: Prisma.TransactionClient) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** Events written to the outbox since `afterId`, each checked against its schema. */
  events(afterId?: bigint): Promise<{ id: bigint; name: EventName; payload: Record<string, unknown> }[]>;
  lastEventId(): Promise<bigint>;
  /** Fails when the money audit finds the books unbalanced, after closing all the same. */
  close(): Promise<void>;
}

/** A migrated test database, a platform on it and the domain's dependencies with a settable clock (strict event schemas). */
export async function openCommerce(name: string): Promise<Commerce> {
  const database: TestDatabase = await createTestDatabase(name);
  await applyMigrations(database.url);
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: database.url, CACHE_URL: inject('redisUrl'), EVENT_SCHEMA_MODE: 'strict' });
  const logger = createLogger({ level: 'ERROR', service: 'test' });
  const platform = await openPlatform(config, logger, 'test');
  const emitter = createEmitter({ mode: 'strict', logger, metrics: outboxMetrics(platform.metrics, platform.database.pool) });
  let now = new Date('2026-11-23T10:00:00.000Z');
  const pool = platform.database.pool;
  return {
    platform,
    deps: { emit: emitter.emit, now: () => now },
    setNow: (date) => void (now = date),
    transaction: (work, options) => emitter.transaction(platform.database.prisma, work, options),
    async events(afterId = 0n) {
      const { rows } = await pool.query<{ id: string; name: EventName; payload: Record<string, unknown> }>(
        'SELECT id, name, payload FROM outbox_events WHERE id > $1 ORDER BY id',
        [afterId.toString()],
      );
      for (const row of rows) {
        const errors = validateEvent(row.name, row.payload);
        if (errors.length > 0) throw new Error(`${row.name} payload does not match its schema: ${JSON.stringify(errors)}`);
      }
      return rows.map((row) => ({ ...row, id: BigInt(row.id) }));
    },
    async lastEventId() {
      const { rows } = await pool.query<{ id: string | null }>('SELECT max(id)::text AS id FROM outbox_events');
      return BigInt(rows[0]?.id ?? '0');
    },
    /** Audits the books (test/support/money-audit.ts), then closes the platform and drops the database. */
    close: () =>
      closeAfterAudit(platform.database.prisma, async () => {
        await platform.close();
        await database.drop();
      }),
  };
}

export interface Catalog {
  readonly channelId: bigint;
  readonly locationId: bigint;
  readonly brandId: bigint;
  readonly categoryIds: readonly bigint[];
  /** Creates a product sold in the channel with this many units on hand. */
  product(sku: string, price: string, onHand: number): Promise<bigint>;
}

export async function seedCatalog(commerce: Commerce, prefix: string): Promise<Catalog> {
  return commerce.transaction(async (tx) => {
    const channel = await createChannel(tx, { code: `${prefix}-web`, name: 'Web', defaultCurrency: 'EUR' });
    const location = await tx.stockLocation.create({ data: { name: `${prefix} warehouse` } });
    const brand = await createBrand(tx, { name: 'Acme', slug: `${prefix}-acme` });
    const apparel = await createCategory(tx, { name: 'Apparel', slug: `${prefix}-apparel` });
    const tees = await createCategory(tx, { name: 'Tees', slug: `${prefix}-tees`, parentId: apparel.id });
    const catalog: Catalog = {
      channelId: channel.id,
      locationId: location.id,
      brandId: brand.id,
      categoryIds: [tees.id, apparel.id],
      product: (sku, price, onHand) =>
        commerce.transaction(async (inner) => {
          const product = await createProduct(inner, commerce.deps, {
            sku: `${prefix}-${sku}`,
            name: sku,
            slug: `${prefix}-${sku}`.toLowerCase(),
            price,
            currency: 'EUR',
            brandId: brand.id,
            categoryIds: catalog.categoryIds,
            channelIds: [channel.id],
          });
          await setStockOnHand(inner, commerce.deps, { productId: product.id, locationId: location.id, onHand, reason: 'restock' });
          return product.id;
        }),
    };
    return catalog;
  });
}

export const ADDRESS = { name: 'Ada Lovelace', line1: 'Main Street 1', postalCode: '10115', city: 'Berlin', countryCode: 'DE' };

/** The DomainError `work` fails with (the test fails when it succeeds or fails otherwise). */
export async function refusal(work: Promise<unknown>): Promise<DomainError> {
  const error = await work.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}
