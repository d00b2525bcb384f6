// Paying by card through GraphQL, with the api configured for the real test gateway (PAYMENT_GATEWAY_URL
// and the stored API key), asserting what the gateway itself logged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_API_KEY_SECRET, setStoredSecret } from '@shop/platform';
import { startTestGateway, TestGatewayControl, type RunningTestGateway } from '../../../../tools/test-gateway/src/index.ts';
import { createTestDatabase, type TestDatabase } from '../../../../test/infra/isolation.ts';
import { bearer, openGraphqlApi, seedDemoShop, type GraphqlApi } from '../support/graphql-harness.ts';

const API_KEY = 'graphql_tenders_gateway_key';
const WEB = { 'x-channel-id': 'web' };
const ADDRESS = { name: 'Ada Lovelace', line1: 'Main Street 1', postalCode: '10115', city: 'Berlin', countryCode: 'DE' };
const TENDER_FIELDS = 'kind status currency authorized captured refunded voided authorizationExpiresAt';
const PLACE_ORDER = `mutation ($input: PlaceOrderInput!) { placeOrder(input: $input) { id status total tenders { ${TENDER_FIELDS} } } }`;

let gatewayDatabase: TestDatabase;
let gateway: RunningTestGateway;
let control: TestGatewayControl;
let api: GraphqlApi;
let admin: Record<string, string>;
let channelId: string;
let locationId: string;
let products = 0;

beforeAll(async () => {
  gatewayDatabase = await createTestDatabase('graphql_tenders_gateway');
  gateway = await startTestGateway({ databaseUrl: gatewayDatabase.url, apiKey: API_KEY });
  control = new TestGatewayControl(gateway.url, API_KEY);
  api = await openGraphqlApi('graphql_tenders', { PAYMENT_GATEWAY_URL: gateway.url });
  await setStoredSecret(api.prisma, api.platform.masterKeys, {
    key: GATEWAY_API_KEY_SECRET,
    value: API_KEY,
    setAt: new Date(),
    setByStaffUserId: null,
  });
  ({ channelId, locationId, admin } = await seedDemoShop(api));
});

afterAll(async () => {
  await api?.close();
  await gateway?.close();
  await gatewayDatabase?.drop();
});

interface Tender {
  readonly kind: string;
  readonly status: string;
  readonly authorized: string;
  readonly [field: string]: unknown;
}

/** A cart holding 2 of a new product at 12.50 (5 on hand), and the shopper's headers: a new guest's unless given. */
async function cartOf(shopper?: Record<string, string>): Promise<{ cartId: string; headers: Record<string, string> }> {
  products += 1;
  const { createProduct } = await api.data<{ createProduct: { id: string } }>(
    'mutation ($input: ProductInput!) { createProduct(input: $input) { id } }',
    {
      input: {
        sku: `CARD-${products}`,
        name: `Card product ${products}`,
        slug: `card-product-${products}`,
        price: '12.50',
        currency: 'EUR',
        channelIds: [channelId],
      },
    },
    admin,
  );
  await api.data(
    'mutation ($input: SetStockOnHandInput!) { setStockOnHand(input: $input) { onHand } }',
    { input: { productId: createProduct.id, locationId, onHand: 5, reason: 'restock' } },
    admin,
  );
  const headers = shopper ?? { ...WEB, 'x-session-id': await api.guestSession() };
  const { createCart } = await api.data<{ createCart: { id: string } }>('mutation { createCart { id } }', {}, headers);
  await api.data(
    'mutation ($cartId: ID!, $productId: ID!) { addCartLine(cartId: $cartId, productId: $productId, quantity: 2) { id } }',
    { cartId: createCart.id, productId: createProduct.id },
    headers,
  );
  return { cartId: createCart.id, headers };
}

describe('paying by card through GraphQL', () => {
  it('authorizes at checkout, shows the tender with decimal amounts to the shopper and to staff, and voids it on cancel', async () => {
    const { cartId, headers } = await cartOf();
    const input = {
      cartId,
      email: 'guest@example.com',
      billingAddress: ADDRESS,
      idempotencyKey: 'graphql-card-checkout-1',
      card: { token: 'tok_graphql' },
    };
    const { placeOrder: order } = await api.data<{ placeOrder: { id: string; status: string; total: string; tenders: Tender[] } }>(
      PLACE_ORDER,
      { input },
      headers,
    );
    expect(order.status).toBe('PLACED');
    expect(order.tenders).toEqual([
      {
        kind: 'CARD',
        status: 'AUTHORIZED',
        currency: 'EUR',
        authorized: order.total,
        captured: '0.00',
        refunded: '0.00',
        voided: '0.00',
        authorizationExpiresAt: expect.any(String),
      },
    ]);
    expect(order.total).toMatch(/^\d+\.\d{2}$/);

    const { cancelOrder } = await api.data<{ cancelOrder: { status: string; tenders: Tender[] } }>(
      `mutation ($id: ID!) { cancelOrder(id: $id, reason: "shopper asked") { status tenders { ${TENDER_FIELDS} } } }`,
      { id: order.id },
      admin,
    );
    expect(cancelOrder.status).toBe('CANCELLED');
    expect(cancelOrder.tenders).toEqual([expect.objectContaining({ status: 'VOIDED', authorized: order.total, voided: order.total })]);
    const { order: seen } = await api.data<{ order: { tenders: Tender[] } }>(
      `query ($id: ID!) { order(id: $id) { tenders { ${TENDER_FIELDS} } } }`,
      { id: order.id },
      admin,
    );
    expect(seen.tenders).toEqual(cancelOrder.tenders);

    const kinds = (await control.operations()).map((operation) => `${operation.kind}:${operation.status}`);
    expect(kinds).toEqual(['authorize:approved', 'void:approved']);
  });

  it("shows a customer the tenders of their own orders, and nobody else's", async () => {
    const customer = async (email: string) =>
      bearer(
        (
          await api.data<{ registerCustomer: { accessToken: string } }>(
            'mutation ($email: String!) { registerCustomer(input: { email: $email, password: "card-password-1" }) { accessToken } }',
            { email },
            WEB,
          )
        ).registerCustomer.accessToken,
      );
    const buyer = await customer('card-buyer@example.com');
    const { cartId } = await cartOf(buyer);
    const input = {
      cartId,
      email: 'card-buyer@example.com',
      billingAddress: ADDRESS,
      idempotencyKey: 'graphql-card-checkout-3',
      card: { token: 'tok_graphql_customer' },
    };
    const { placeOrder } = await api.data<{ placeOrder: { id: string; total: string } }>(PLACE_ORDER, { input }, buyer);

    const MY_ORDERS = `query { myOrders { nodes { id tenders { ${TENDER_FIELDS} } } } }`;
    const mine = await api.data<{ myOrders: { nodes: { id: string; tenders: Tender[] }[] } }>(MY_ORDERS, {}, buyer);
    expect(mine.myOrders.nodes).toEqual([
      { id: placeOrder.id, tenders: [expect.objectContaining({ kind: 'CARD', status: 'AUTHORIZED', authorized: placeOrder.total })] },
    ]);
    const other = await api.data<{ myOrders: { nodes: unknown[] } }>(MY_ORDERS, {}, await customer('someone-else@example.com'));
    expect(other.myOrders.nodes).toEqual([]);
  });

  it('answers a declined card as BAD_USER_INPUT on the card, and places no order', async () => {
    const { cartId, headers } = await cartOf();
    await control.addFault({ fault: { kind: 'decline' }, operation: 'authorize', cardToken: 'tok_graphql_declined' });
    const input = {
      cartId,
      email: 'guest@example.com',
      billingAddress: ADDRESS,
      idempotencyKey: 'graphql-card-checkout-2',
      card: { token: 'tok_graphql_declined' },
    };
    const declined = await api.error(PLACE_ORDER, { input }, headers);
    expect(declined).toMatchObject({
      message: 'the card was declined (card_declined): pay with another card',
      extensions: { code: 'BAD_USER_INPUT', field: 'card', declineCode: 'card_declined' },
    });
    expect(await api.prisma.order.count({ where: { cartId: BigInt(cartId) } })).toBe(0);
  });
});
