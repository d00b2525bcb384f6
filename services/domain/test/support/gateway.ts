import { givenCredentials, HttpPaymentGateway, type Prisma } from '@shop/platform';
import { startTestGateway, TestGatewayControl } from '../../../../tools/test-gateway/src/index.ts';
import type { DomainDeps } from '../../src/kernel/context.ts';
import { addCartLine, createCart } from '../../src/carts/carts.ts';
import { checkout } from '../../src/flows/checkout.ts';
import type { OrderWithLines } from '../../src/orders/order-events.ts';
import { GATEWAY_TRANSACTION } from '../../src/tenders/tenders.ts';
import { ADDRESS, openCommerce, seedCatalog, type Catalog, type Commerce } from './commerce.ts';

export interface GuestCart {
  readonly cartId: bigint;
  readonly productId: bigint;
  readonly sessionId: string;
}

/** A test database with a catalog, the real test gateway (its own HTTP server on that database) and the domain wired to it. */
export interface GatewayCommerce {
  readonly commerce: Commerce;
  readonly catalog: Catalog;
  /** The test gateway's own log and faults. */
  readonly control: TestGatewayControl;
  /** The commerce's dependencies with an HTTP gateway on the test gateway. */
  readonly deps: DomainDeps;
  /** A transaction long enough to wait for the gateway (GATEWAY_TRANSACTION). */
  readonly inGatewayTransaction: <T>(work: (tx: Prisma.TransactionClient) => Promise<T>) => Promise<T>;
  /** A guest's cart with `quantity` (2) units of a new product priced 19.90, `onHand` (10) of it in stock. */
  guestCart(name: string, options?: { quantity?: number; onHand?: number }): Promise<GuestCart>;
  /** The guest cart's checkout paid by the card `token` through the test gateway. */
  payByCard(cart: GuestCart, idempotencyKey: string, token: string): Promise<OrderWithLines>;
  close(): Promise<void>;
}

/** `name` names the database and the gateway's API key; `prefix` the catalog's codes and slugs. */
export async function openGatewayCommerce(name: string, prefix: string): Promise<GatewayCommerce> {
  const commerce = await openCommerce(name);
  try {
    const catalog = await seedCatalog(commerce, prefix);
    const databaseUrl = commerce.platform.config.databaseUrl;
    if (databaseUrl === undefined) throw new Error('the test platform has no DATABASE_URL');
    const apiKey = `${name}_gateway_key`;
    const server = await startTestGateway({ databaseUrl, apiKey });
    const deps: DomainDeps = {
      ...commerce.deps,
      gateway: new HttpPaymentGateway({ baseUrl: server.url, credentials: givenCredentials(apiKey) }),
    };
    return {
      commerce,
      catalog,
      control: new TestGatewayControl(server.url, apiKey),
      deps,
      inGatewayTransaction: (work) => commerce.transaction(work, GATEWAY_TRANSACTION),
      async guestCart(cartName, { quantity = 2, onHand = 10 } = {}) {
        const productId = await catalog.product(cartName, '19.90', onHand);
        const shopper = { sessionId: `s-${cartName}` };
        const cartId = await commerce.transaction(async (tx) => {
          const cart = await createCart(tx, commerce.deps, { channelId: catalog.channelId, shopper });
          await addCartLine(tx, commerce.deps, { cartId: cart.id, shopper, productId, quantity });
          return cart.id;
        });
        return { cartId, productId, sessionId: shopper.sessionId };
      },
      payByCard: (cart, idempotencyKey, token) =>
        checkout(commerce.transaction, deps, {
          cartId: cart.cartId,
          shopper: { sessionId: cart.sessionId },
          email: 'ada@example.com',
          billingAddress: ADDRESS,
          shippingAddress: ADDRESS,
          idempotencyKey,
          card: { token },
        }),
      async close() {
        await server.close();
        await commerce.close();
      },
    };
  } catch (error) {
    await commerce.close();
    throw error;
  }
}
