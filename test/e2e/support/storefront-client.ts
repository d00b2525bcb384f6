// A storefront's and an admin's calls against a running api, every request for the `web` channel.
import { randomUUID } from 'node:crypto';
import { graphqlCaller as callerFor, type CallerOptions, type GraphqlCaller } from '../../support/graphql-http.ts';

const CHANNEL = 'web';

export function graphqlCaller(apiUrl: string, options: Omit<CallerOptions, 'channel'> = {}): GraphqlCaller {
  return callerFor(apiUrl, { ...options, channel: CHANNEL });
}

export interface StockedProduct {
  readonly productId: string;
}

/** Signs the admin in and puts one product on sale in a new `web` channel with stock; resolves with the admin's access token. */
export async function stockOneProduct(
  apiUrl: string,
  admin: { email: string; password: string },
): Promise<{ accessToken: string; product: StockedProduct }> {
  const anonymous = graphqlCaller(apiUrl);
  const { loginStaff } = await anonymous<{ loginStaff: { accessToken: string } }>(
    'mutation ($email: String!, $password: String!) { loginStaff(email: $email, password: $password) { accessToken } }',
    admin,
  );
  const staff = graphqlCaller(apiUrl, { accessToken: loginStaff.accessToken });
  const { createChannel } = await staff<{ createChannel: { id: string } }>(
    `mutation { createChannel(input: { code: "${CHANNEL}", name: "Web shop", defaultCurrency: "EUR" }) { id } }`,
  );
  const { createStockLocation } = await staff<{ createStockLocation: { id: string } }>(
    'mutation { createStockLocation(name: "Main warehouse") { id } }',
  );
  const { createProduct } = await staff<{ createProduct: { id: string } }>(
    'mutation ($channelId: ID!) { createProduct(input: { sku: "E2E-TEE", name: "End-to-end tee", slug: "e2e-tee", price: "19.90", currency: "EUR", channelIds: [$channelId] }) { id } }',
    { channelId: createChannel.id },
  );
  await staff(
    'mutation ($productId: ID!, $locationId: ID!) { setStockOnHand(input: { productId: $productId, locationId: $locationId, onHand: 10 }) { onHand } }',
    {
      productId: createProduct.id,
      locationId: createStockLocation.id,
    },
  );
  return { accessToken: loginStaff.accessToken, product: { productId: createProduct.id } };
}

export interface PlacedOrder {
  readonly id: string;
  readonly status: string;
  readonly total: string;
}

/** A guest's visit: a session, a cart with two of the product, and an order without payment. */
export async function placeGuestOrder(apiUrl: string, product: StockedProduct): Promise<PlacedOrder> {
  const { startGuestSession } = await graphqlCaller(apiUrl)<{ startGuestSession: string }>('mutation { startGuestSession }');
  const guest = graphqlCaller(apiUrl, { sessionId: startGuestSession });
  const { createCart } = await guest<{ createCart: { id: string } }>('mutation { createCart { id } }');
  await guest(
    'mutation ($cartId: ID!, $productId: ID!) { addCartLine(cartId: $cartId, productId: $productId, quantity: 2) { itemCount } }',
    { cartId: createCart.id, productId: product.productId },
  );
  const { placeOrder } = await guest<{ placeOrder: PlacedOrder }>(
    'mutation ($input: PlaceOrderInput!) { placeOrder(input: $input) { id status total } }',
    {
      input: {
        cartId: createCart.id,
        email: 'ada@example.com',
        billingAddress: { name: 'Ada Lovelace', line1: 'Main Street 1', postalCode: '10115', city: 'Berlin', countryCode: 'DE' },
        idempotencyKey: randomUUID(),
      },
    },
  );
  return placeOrder;
}
