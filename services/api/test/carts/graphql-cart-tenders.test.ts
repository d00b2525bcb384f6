// Cart tenders through GraphQL on an api without a workflow engine: a placeOrder that fails after the
// card was authorized leaves the tender, a cart changed since is refused with CONFLICT, and the api's
// own in-process GcExpiredCartTenders pass voids the idle tender once, as the test gateway logs it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, GATEWAY_API_KEY_SECRET, setStoredSecret } from '@shop/platform';
import { startTestGateway, TestGatewayControl, type RunningTestGateway } from '../../../../tools/test-gateway/src/index.ts';
import { createTestDatabase, type TestDatabase } from '../../../../test/infra/isolation.ts';
import { waitFor } from '../../../../test/support/wait.ts';
import { sweepPassDeps } from '@shop/domain/flows';
import { workflowEngine } from '../../src/workflows/api-workflows.ts';
import type { ShopWorkflowEngine } from '../../src/workflows/workflow-triggers.ts';
import { openGraphqlApi, seedDemoShop, type GraphqlApi } from '../support/graphql-harness.ts';

const API_KEY = 'graphql_cart_tenders_gateway_key';
const WEB = { 'x-channel-id': 'web' };
const ADDRESS = { name: 'Ada Lovelace', line1: 'Main Street 1', postalCode: '10115', city: 'Berlin', countryCode: 'DE' };
const PLACE_ORDER = 'mutation ($input: PlaceOrderInput!) { placeOrder(input: $input) { id status } }';

let gatewayDatabase: TestDatabase;
let gateway: RunningTestGateway;
let control: TestGatewayControl;
let api: GraphqlApi;
let engine: ShopWorkflowEngine | undefined;
let admin: Record<string, string>;
let channelId: string;
let locationId: string;

beforeAll(async () => {
  gatewayDatabase = await createTestDatabase('graphql_cart_tenders_gateway');
  gateway = await startTestGateway({ databaseUrl: gatewayDatabase.url, apiKey: API_KEY });
  control = new TestGatewayControl(gateway.url, API_KEY);
  api = await openGraphqlApi('graphql_cart_tenders', { PAYMENT_GATEWAY_URL: gateway.url });
  await setStoredSecret(api.prisma, api.platform.masterKeys, {
    key: GATEWAY_API_KEY_SECRET,
    value: API_KEY,
    setAt: new Date(),
    setByStaffUserId: null,
  });
  ({ channelId, locationId, admin } = await seedDemoShop(api));
});

afterAll(async () => {
  await engine?.stop();
  await api?.close();
  await gateway?.close();
  await gatewayDatabase?.drop();
});

/** A guest's cart holding 2 of a new product of which only 1 is on hand: its checkout fails in the order's transaction. */
async function shortCart(sku: string): Promise<{ cartId: string; productId: string; headers: Record<string, string> }> {
  const { createProduct } = await api.data<{ createProduct: { id: string } }>(
    'mutation ($input: ProductInput!) { createProduct(input: $input) { id } }',
    { input: { sku, name: sku, slug: sku.toLowerCase(), price: '12.50', currency: 'EUR', channelIds: [channelId] } },
    admin,
  );
  await api.data(
    'mutation ($input: SetStockOnHandInput!) { setStockOnHand(input: $input) { onHand } }',
    { input: { productId: createProduct.id, locationId, onHand: 1, reason: 'restock' } },
    admin,
  );
  const headers = { ...WEB, 'x-session-id': await api.guestSession() };
  const { createCart } = await api.data<{ createCart: { id: string } }>('mutation { createCart { id } }', {}, headers);
  await api.data(
    'mutation ($cartId: ID!, $productId: ID!) { addCartLine(cartId: $cartId, productId: $productId, quantity: 2) { id } }',
    { cartId: createCart.id, productId: createProduct.id },
    headers,
  );
  return { cartId: createCart.id, productId: createProduct.id, headers };
}

const checkoutInput = (cartId: string, idempotencyKey: string) => ({
  cartId,
  email: 'guest@example.com',
  billingAddress: ADDRESS,
  idempotencyKey,
  card: { token: 'tok_graphql_cart' },
});

describe('cart tenders through GraphQL, without a workflow engine', () => {
  it('refuses a cart changed after its authorization, and the in-process sweep voids the idle tender of a failed checkout once', async () => {
    const idle = await shortCart('CART-IDLE');
    expect(
      (await api.error(PLACE_ORDER, { input: checkoutInput(idle.cartId, 'graphql-cart-idle-1') }, idle.headers)).extensions,
    ).toMatchObject({ code: 'BAD_USER_INPUT' });

    const changed = await shortCart('CART-CHANGED');
    await api.error(PLACE_ORDER, { input: checkoutInput(changed.cartId, 'graphql-cart-changed-1') }, changed.headers);
    await api.data(
      'mutation ($cartId: ID!, $productId: ID!) { setCartLineQuantity(cartId: $cartId, productId: $productId, quantity: 1) { id } }',
      { cartId: changed.cartId, productId: changed.productId },
      changed.headers,
    );
    const stale = await api.error(PLACE_ORDER, { input: checkoutInput(changed.cartId, 'graphql-cart-changed-1') }, changed.headers);
    expect(stale.extensions).toMatchObject({ code: 'CONFLICT', field: 'idempotencyKey', reason: 'stale_card_authorization' });
    expect(stale.message).toMatch(/^the cart changed after the card was authorized for it/);

    const tenders = () =>
      api.prisma.paymentTender.findMany({
        where: { cartId: { in: [BigInt(idle.cartId), BigInt(changed.cartId)] } },
        orderBy: { id: 'asc' },
      });
    expect((await tenders()).map((tender) => [tender.status, tender.orderId])).toEqual([
      ['AUTHORIZED', null],
      ['VOIDED', null],
    ]);
    // The idle tender's hold runs out, as if cartTenderIdleMinutes had passed: the sweep's first pass, started below, finds it idle.
    await api.prisma.paymentTender.updateMany({
      where: { cartId: BigInt(idle.cartId) },
      data: { holdExpiresAt: new Date(Date.now() - 1_000) },
    });

    engine = await workflowEngine(api.platform.config, createLogger({ level: 'ERROR', service: 'api' }));
    engine.begin(() => sweepPassDeps(api.platform, api.outbox));
    await waitFor(
      async () => (await tenders()).every((tender) => tender.status === 'VOIDED'),
      30_000,
      'the in-process void of the idle cart tender',
    );

    const voids = (await control.operations()).filter((operation) => operation.kind === 'void');
    expect(voids.map((operation) => operation.idempotencyKey).sort()).toEqual(
      (await tenders()).map((tender) => `void:${tender.id}`).sort(),
    );
    const metrics = await api.platform.metrics.metrics();
    expect(metrics).toContain('workflow_sweep_rows_total{sweep="GcExpiredCartTendersWorkflow",what="voided_cart_tenders"');
  });
});
