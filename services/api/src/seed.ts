// npm run db:seed: the admin staff user from SEED_ADMIN_EMAIL / SEED_ADMIN_PASSWORD and a demo
// catalog; with --admin-only (the operator's seed Job, for a real shop) the admin alone. Idempotent:
// what exists already (matched by email, code, name, slug or SKU) is left as it is.
import {
  createEmitter,
  createLogger,
  domainDeps,
  loadConfigOrExit,
  openPlatform,
  outboxMetrics,
  type Platform,
  type RunTransaction,
} from '@shop/platform';
import { ensureAdmin } from '@shop/domain/auth';
import { createBrand, createCategory, createChannel, createProduct } from '@shop/domain/catalog';
import { setStockOnHand } from '@shop/domain/inventory';
import { DomainError, type DomainDeps, type Tx } from '@shop/domain/kernel';

export interface SeedAdmin {
  readonly email: string;
  readonly password: string;
  readonly name: string;
}

export interface SeedReport {
  readonly adminCreated: boolean;
  readonly channelId: bigint;
  readonly locationId: bigint;
  /** What this run created, by kind; all zero on a second run. */
  readonly created: { channels: number; locations: number; brands: number; categories: number; products: number };
}

export const DEMO_CHANNEL = { code: 'web', name: 'Web shop', defaultCurrency: 'EUR' } as const;
export const DEMO_LOCATION = 'Main warehouse';

const BRANDS = [
  { slug: 'northwind', name: 'Northwind' },
  { slug: 'fjord', name: 'Fjord Outfitters' },
  { slug: 'acme', name: 'Acme' },
] as const;

/** Parents before children. */
const CATEGORIES = [
  { slug: 'apparel', name: 'Apparel', position: 0 },
  { slug: 't-shirts', name: 'T-shirts', parent: 'apparel', position: 0 },
  { slug: 'hoodies', name: 'Hoodies', parent: 'apparel', position: 1 },
  { slug: 'accessories', name: 'Accessories', position: 1 },
  { slug: 'bags', name: 'Bags', parent: 'accessories', position: 0 },
  { slug: 'caps', name: 'Caps', parent: 'accessories', position: 1 },
] as const;

type BrandSlug = (typeof BRANDS)[number]['slug'];
type CategorySlug = (typeof CATEGORIES)[number]['slug'];

interface DemoProduct {
  readonly sku: string;
  readonly name: string;
  readonly price: string;
  readonly brand: BrandSlug;
  readonly categories: readonly CategorySlug[];
  readonly stock: number;
}

export const DEMO_PRODUCTS: readonly DemoProduct[] = [
  { sku: 'TEE-BLK', name: 'Black tee', price: '19.90', brand: 'northwind', categories: ['t-shirts', 'apparel'], stock: 120 },
  { sku: 'TEE-WHT', name: 'White tee', price: '19.90', brand: 'northwind', categories: ['t-shirts', 'apparel'], stock: 80 },
  { sku: 'TEE-NAVY', name: 'Navy striped tee', price: '24.50', brand: 'fjord', categories: ['t-shirts', 'apparel'], stock: 40 },
  { sku: 'HOOD-GRY', name: 'Grey hoodie', price: '49.00', brand: 'fjord', categories: ['hoodies', 'apparel'], stock: 35 },
  { sku: 'HOOD-OLV', name: 'Olive zip hoodie', price: '59.00', brand: 'northwind', categories: ['hoodies', 'apparel'], stock: 20 },
  { sku: 'BAG-TOTE', name: 'Canvas tote bag', price: '14.00', brand: 'acme', categories: ['bags', 'accessories'], stock: 200 },
  { sku: 'BAG-PACK', name: 'Roll-top backpack', price: '89.00', brand: 'fjord', categories: ['bags', 'accessories'], stock: 15 },
  { sku: 'CAP-BLK', name: 'Black cap', price: '22.00', brand: 'acme', categories: ['caps', 'accessories'], stock: 60 },
  { sku: 'CAP-BEIGE', name: 'Beige cap', price: '22.00', brand: 'acme', categories: ['caps', 'accessories'], stock: 0 },
  { sku: 'BEANIE-RED', name: 'Red beanie', price: '17.50', brand: 'northwind', categories: ['caps', 'accessories'], stock: 5 },
];

const slugOf = (sku: string): string => sku.toLowerCase();

async function seedCatalog(tx: Tx, deps: DomainDeps, created: SeedReport['created']): Promise<{ channelId: bigint; locationId: bigint }> {
  let channel = await tx.channel.findUnique({ where: { code: DEMO_CHANNEL.code } });
  if (channel === null) {
    channel = await createChannel(tx, DEMO_CHANNEL);
    created.channels += 1;
  }
  let location = await tx.stockLocation.findUnique({ where: { name: DEMO_LOCATION } });
  if (location === null) {
    location = await tx.stockLocation.create({ data: { name: DEMO_LOCATION } });
    created.locations += 1;
  }

  const brands = new Map<string, bigint>();
  for (const brand of BRANDS) {
    let found = await tx.brand.findUnique({ where: { slug: brand.slug } });
    if (found === null) {
      found = await createBrand(tx, brand);
      created.brands += 1;
    }
    brands.set(brand.slug, found.id);
  }
  const categories = new Map<string, bigint>();
  for (const category of CATEGORIES) {
    const parentId = 'parent' in category ? categories.get(category.parent) : undefined;
    let found = await tx.category.findUnique({ where: { slug: category.slug } });
    if (found === null) {
      found = await createCategory(tx, {
        name: category.name,
        slug: category.slug,
        position: category.position,
        ...(parentId === undefined ? {} : { parentId }),
      });
      created.categories += 1;
    }
    categories.set(category.slug, found.id);
  }

  for (const demo of DEMO_PRODUCTS) {
    if ((await tx.product.count({ where: { sku: demo.sku } })) > 0) continue;
    const product = await createProduct(tx, deps, {
      sku: demo.sku,
      name: demo.name,
      slug: slugOf(demo.sku),
      description: `${demo.name}, a demo product.`,
      price: demo.price,
      currency: DEMO_CHANNEL.defaultCurrency,
      brandId: brands.get(demo.brand) as bigint,
      categoryIds: demo.categories.map((slug) => categories.get(slug) as bigint),
      channelIds: [channel.id],
    });
    created.products += 1;
    await setStockOnHand(tx, deps, { productId: product.id, locationId: location.id, onHand: demo.stock, reason: 'restock' });
  }
  return { channelId: channel.id, locationId: location.id };
}

/** The embedded database (PGlite) needs several seconds for the whole seed; Prisma's default is 5. */
const SEED_TRANSACTION = { maxWait: 30_000, timeout: 300_000 } as const;

/** One transaction: the admin and the demo catalog are both there afterwards, or neither changed. */
export async function seedShop(transaction: RunTransaction, deps: DomainDeps, admin: SeedAdmin): Promise<SeedReport> {
  return transaction(async (tx) => {
    const created = { channels: 0, locations: 0, brands: 0, categories: 0, products: 0 };
    const { created: adminCreated } = await ensureAdmin(tx, admin);
    const { channelId, locationId } = await seedCatalog(tx, deps, created);
    return { adminCreated, channelId, locationId, created };
  }, SEED_TRANSACTION);
}

/** The admin alone, for a shop whose catalog is its own. */
export async function seedAdmin(transaction: RunTransaction, admin: SeedAdmin): Promise<{ adminCreated: boolean }> {
  return transaction(async (tx) => ({ adminCreated: (await ensureAdmin(tx, admin)).created }));
}

export class SeedInputError extends Error {}

/** The admin from the environment; SeedInputError naming the variable when one is missing. */
export function seedAdminFrom(env: NodeJS.ProcessEnv): SeedAdmin {
  const missing = (name: string, what: string) =>
    new SeedInputError(`${name} is not set: give the ${what} of the admin staff user to create`);
  const email = env.SEED_ADMIN_EMAIL?.trim();
  if (email === undefined || email === '') throw missing('SEED_ADMIN_EMAIL', 'email');
  // Taken as it is: spaces are allowed in passwords.
  const password = env.SEED_ADMIN_PASSWORD;
  if (password === undefined || password === '') throw missing('SEED_ADMIN_PASSWORD', 'password (10 to 200 characters)');
  return { email, password, name: env.SEED_ADMIN_NAME?.trim() || 'Admin' };
}

const VARIABLE_OF_FIELD: Readonly<Record<string, string>> = {
  email: 'SEED_ADMIN_EMAIL',
  password: 'SEED_ADMIN_PASSWORD',
  name: 'SEED_ADMIN_NAME',
};

async function main(argv: readonly string[]): Promise<void> {
  let admin: SeedAdmin;
  try {
    if (argv.some((arg) => arg !== '--admin-only'))
      throw new SeedInputError(`unknown argument ${argv.find((arg) => arg !== '--admin-only')}: the only one is --admin-only`);
    admin = seedAdminFrom(process.env);
  } catch (error) {
    if (!(error instanceof SeedInputError)) throw error;
    process.stderr.write(`seed error: ${error.message}\n`);
    process.exit(1);
  }
  const config = loadConfigOrExit();
  const logger = createLogger({ level: config.logLevel, service: 'seed' });
  let platform: Platform | undefined;
  try {
    platform = await openPlatform(config, logger, 'seed');
    const { database } = platform;
    const emitter = createEmitter({ mode: config.eventSchemaMode, logger, metrics: outboxMetrics(platform.metrics, database.pool) });
    const transaction: RunTransaction = (work, options) => emitter.transaction(database.prisma, work, options);
    if (argv.includes('--admin-only')) {
      const { adminCreated } = await seedAdmin(transaction, admin);
      process.stdout.write(`seeded: admin ${admin.email} ${adminCreated ? 'created' : 'already there'}\n`);
      return;
    }
    const report = await seedShop(transaction, domainDeps(platform, emitter.emit), admin);
    logger.info({ ...report, channelId: report.channelId.toString(), locationId: report.locationId.toString() }, 'seeded');
    process.stdout.write(
      `seeded: admin ${admin.email} ${report.adminCreated ? 'created' : 'already there'}; channel ${DEMO_CHANNEL.code} (id ${report.channelId}); ` +
        `created ${report.created.products} products, ${report.created.categories} categories, ${report.created.brands} brands\n`,
    );
  } catch (error) {
    if (error instanceof DomainError) {
      const variable = VARIABLE_OF_FIELD[String(error.details.field)];
      process.stderr.write(`seed error: ${variable === undefined ? '' : `${variable}: `}${error.message}\n`);
    } else {
      logger.fatal({ err: error }, 'the seed failed');
      process.stderr.write(`seed error: ${error instanceof Error ? error.message : String(error)}\n`);
    }
    process.exitCode = 1;
  } finally {
    await platform?.close();
    logger.flush();
  }
}

if (import.meta.main) await main(process.argv.slice(2));
