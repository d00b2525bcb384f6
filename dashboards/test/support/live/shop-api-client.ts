// The requests a storefront and a staff user send to the api over HTTP: GraphQL, and the REST /track
// endpoint the storefront's beacon posts to.
import { randomInt, randomUUID } from 'node:crypto';

const WEB_CHANNEL = { 'x-channel-id': 'web' };
const ADDRESS = { name: 'Ada Lovelace', line1: 'Main Street 1', postalCode: '10115', city: 'Berlin', countryCode: 'DE' };
const TRACK_BATCH = 10;

export interface Answer {
  readonly status: number;
  readonly body: { data?: Record<string, unknown> | null; errors?: unknown[] };
}

export class ShopApiClient {
  readonly #url: string;
  #staff: Record<string, string> = {};

  constructor(url: string) {
    this.#url = url;
  }

  async graphql(query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<Answer> {
    const response = await fetch(`${this.#url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query, variables }),
    });
    return { status: response.status, body: (await response.json()) as Answer['body'] };
  }

  /** Like graphql, but throws unless the answer holds data and no error; returns the data. */
  async data<T>(query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<T> {
    const { status, body } = await this.graphql(query, variables, headers);
    if (body.errors !== undefined || body.data == null) throw new Error(`GraphQL answered ${status}: ${JSON.stringify(body.errors)}`);
    return body.data as T;
  }

  /** A storefront page: the products of the web channel. */
  products(): Promise<Answer> {
    return this.graphql('{ products(first: 5) { nodes { id sku available } } }', {}, WEB_CHANNEL);
  }

  /** A query the schema does not have: 400. */
  malformed(): Promise<Answer> {
    return this.graphql('{ noSuchField }', {}, WEB_CHANNEL);
  }

  /** One beacon batch of impressions to POST /track; returns the status (202 accepted, 503 when the buffer is full). */
  async track(): Promise<number> {
    const events = Array.from({ length: TRACK_BATCH }, () => ({
      event_type: 'impression',
      entity_type: 'slide',
      entity_id: randomInt(1, 1_000_000),
      page_url: '/',
    }));
    const response = await fetch(`${this.#url}/track`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-session-id': `s-${randomUUID()}` },
      body: JSON.stringify(events),
    });
    await response.arrayBuffer();
    return response.status;
  }

  async signInStaff(email: string, password: string): Promise<void> {
    const { loginStaff } = await this.data<{ loginStaff: { accessToken: string } }>(
      'mutation ($email: String!, $password: String!) { loginStaff(email: $email, password: $password) { accessToken } }',
      { email, password },
    );
    this.#staff = { authorization: `Bearer ${loginStaff.accessToken}` };
  }

  /** A guest buys one unit of the first product in stock; returns the order id. */
  async placeOrder(): Promise<string> {
    // The api takes only session ids it issued.
    const { startGuestSession } = await this.data<{ startGuestSession: string }>('mutation { startGuestSession }', {}, WEB_CHANNEL);
    const session = { ...WEB_CHANNEL, 'x-session-id': startGuestSession };
    const { products } = await this.data<{ products: { nodes: Array<{ id: string; available: number }> } }>(
      '{ products(first: 20) { nodes { id available } } }',
      {},
      WEB_CHANNEL,
    );
    const product = products.nodes.find((node) => node.available > 0);
    if (product === undefined) throw new Error('no product in stock');
    const { createCart } = await this.data<{ createCart: { id: string } }>('mutation { createCart { id } }', {}, session);
    await this.data(
      'mutation ($cartId: ID!, $productId: ID!) { addCartLine(cartId: $cartId, productId: $productId, quantity: 1) { id } }',
      { cartId: createCart.id, productId: product.id },
      session,
    );
    const { placeOrder } = await this.data<{ placeOrder: { id: string } }>(
      'mutation ($input: PlaceOrderInput!) { placeOrder(input: $input) { id } }',
      { input: { cartId: createCart.id, email: 'buyer@example.com', billingAddress: ADDRESS } },
      session,
    );
    return placeOrder.id;
  }

  async markOrderPaid(orderId: string): Promise<void> {
    await this.data('mutation ($id: ID!) { markOrderPaid(id: $id) { status } }', { id: orderId }, this.#staff);
  }

  async cancelOrder(orderId: string): Promise<void> {
    await this.data('mutation ($id: ID!) { cancelOrder(id: $id, reason: "load test") { status } }', { id: orderId }, this.#staff);
  }

  async setSetting(key: string, value: Record<string, unknown>): Promise<void> {
    await this.data('mutation ($key: String!, $value: JSON!) { setSetting(key: $key, value: $value) }', { key, value }, this.#staff);
  }
}
