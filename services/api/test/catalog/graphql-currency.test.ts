// Money at each currency's ISO 4217 exponent through GraphQL: prices refused with more decimals than
// their currency has, and amounts rendered with the currency's decimals ("1000" JPY, "12.345" KWD).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openGraphqlApi, seedDemoShop, type GraphqlApi } from '../support/graphql-harness.ts';

let api: GraphqlApi;
let admin: Record<string, string>;
let locationId: string;
const channels = new Map<string, string>();

const ADDRESS = { name: 'Ada Lovelace', line1: 'Main Street 1', postalCode: '10115', city: 'Berlin', countryCode: 'DE' };
const CART_FIELDS = 'id currency subtotal shipping tax total lines { unitPrice lineTotal }';
const CREATE_PRODUCT = 'mutation ($input: ProductInput!) { createProduct(input: $input) { id price } }';
const UPDATE_PRODUCT = 'mutation ($id: ID!, $input: ProductPatchInput!) { updateProduct(id: $id, input: $input) { id price } }';

beforeAll(async () => {
  api = await openGraphqlApi('graphql_currency');
  ({ locationId, admin } = await seedDemoShop(api));
  for (const currency of ['JPY', 'KWD']) {
    const { createChannel } = await api.data<{ createChannel: { id: string } }>(
      'mutation ($input: ChannelInput!) { createChannel(input: $input) { id } }',
      { input: { code: `shop-${currency.toLowerCase()}`, name: currency, defaultCurrency: currency } },
      admin,
    );
    channels.set(currency, createChannel.id);
  }
});

afterAll(async () => {
  await api?.close();
});

const channelIn = (currency: string): string => channels.get(currency) ?? '';

const productInput = (sku: string, price: string, currency: string, channelId: string) => ({
  input: { sku, name: sku, slug: sku.toLowerCase(), price, currency, channelIds: [channelId] },
});

describe('money at the currency exponent through GraphQL', () => {
  it('refuses a price with more decimals than its currency, naming the field and the currency', async () => {
    const yen = channelIn('JPY');
    const refused = await api.error(CREATE_PRODUCT, productInput('YEN-CENTS', '19.90', 'JPY', yen), admin);
    expect(refused.message).toBe('price must be an amount in JPY with no decimals, e.g. "20", not "19.90"');
    expect(refused.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'price' });

    const { createProduct } = await api.data<{ createProduct: { id: string; price: string } }>(
      CREATE_PRODUCT,
      productInput('EURO-TEE', '19.90', 'EUR', yen),
      admin,
    );
    const moved = await api.error(UPDATE_PRODUCT, { id: createProduct.id, input: { currency: 'JPY' } }, admin);
    expect(moved.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'price' });
    expect(moved.message).toContain('JPY');
    const repriced = await api.data<{ updateProduct: { price: string } }>(
      UPDATE_PRODUCT,
      { id: createProduct.id, input: { currency: 'JPY', price: '2000' } },
      admin,
    );
    expect(repriced.updateProduct.price).toBe('2000');
  });

  it('shows a JPY cart and order without decimals and a KWD one with three', async () => {
    for (const [currency, price, expected] of [
      ['JPY', '1000', { unitPrice: '1000', lineTotal: '2000', subtotal: '2000', total: '2000' }],
      ['KWD', '12.345', { unitPrice: '12.345', lineTotal: '24.690', subtotal: '24.690', total: '24.690' }],
    ] as const) {
      const channelId = channelIn(currency);
      const { createProduct } = await api.data<{ createProduct: { id: string; price: string } }>(
        CREATE_PRODUCT,
        productInput(`${currency}-TEE`, price, currency, channelId),
        admin,
      );
      expect(createProduct.price).toBe(price);
      await api.data(
        'mutation ($input: SetStockOnHandInput!) { setStockOnHand(input: $input) { onHand } }',
        { input: { productId: createProduct.id, locationId, onHand: 5, reason: 'restock' } },
        admin,
      );
      const guest = { 'x-channel-id': channelId, 'x-session-id': await api.guestSession() };
      const { createCart } = await api.data<{ createCart: { id: string } }>(`mutation { createCart { ${CART_FIELDS} } }`, {}, guest);
      const { addCartLine: cart } = await api.data<{
        addCartLine: Record<string, unknown> & { lines: { unitPrice: string; lineTotal: string }[] };
      }>(
        `mutation ($cartId: ID!, $productId: ID!) { addCartLine(cartId: $cartId, productId: $productId, quantity: 2) { ${CART_FIELDS} } }`,
        { cartId: createCart.id, productId: createProduct.id },
        guest,
      );
      expect({ currency: cart.currency, ...cart.lines[0], subtotal: cart.subtotal, total: cart.total }).toEqual({ currency, ...expected });
      const { placeOrder } = await api.data<{
        placeOrder: { currency: string; total: string; lines: { unitPrice: string; lineTotal: string }[] };
      }>(
        'mutation ($input: PlaceOrderInput!) { placeOrder(input: $input) { currency total lines { unitPrice lineTotal } } }',
        { input: { cartId: createCart.id, email: `${currency}@example.com`, billingAddress: ADDRESS, shippingAddress: ADDRESS } },
        guest,
      );
      expect(placeOrder).toEqual({
        currency,
        total: expected.total,
        lines: [{ unitPrice: expected.unitPrice, lineTotal: expected.lineTotal }],
      });
    }
  });
});
