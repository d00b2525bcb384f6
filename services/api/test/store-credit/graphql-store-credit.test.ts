// Store credit through GraphQL: staff with store_credit.issue credit a customer once per key, staff
// with customers.read see the balance and the ledger, a customer sees their own balances.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStaffUser, ensureRole } from '@shop/domain/auth';
import { bearer, openGraphqlApi, seedDemoShop, type GraphqlApi } from '../support/graphql-harness.ts';

const WEB = { 'x-channel-id': 'web' };
const ISSUE = `mutation ($input: IssueStoreCreditInput!) {
  issueStoreCredit(input: $input) { id customerId currency balance entries { kind status amount note staffUserId } }
}`;
const ACCOUNT = `query ($customerId: ID!, $currency: String!) {
  storeCreditAccount(customerId: $customerId, currency: $currency) { currency balance entries(first: 10) { kind status amount note } }
}`;

let api: GraphqlApi;
let admin: Record<string, string>;
let customer: Record<string, string>;
let customerId: string;
let channelId: string;
let locationId: string;

beforeAll(async () => {
  api = await openGraphqlApi('graphql_store_credit');
  ({ admin, channelId, locationId } = await seedDemoShop(api));
  const { registerCustomer } = await api.data<{ registerCustomer: { accessToken: string } }>(
    'mutation { registerCustomer(input: { email: "credit@example.com", password: "credit-password-1" }) { accessToken } }',
    {},
    WEB,
  );
  customer = bearer(registerCustomer.accessToken);
  customerId = (await api.data<{ me: { id: string } }>('query { me { id } }', {}, customer)).me.id;
});

afterAll(async () => {
  await api?.close();
});

const issue = (input: Record<string, unknown>, headers = admin) =>
  api.request<{ issueStoreCredit: { balance: string } }>(ISSUE, { input: { customerId, currency: 'EUR', ...input } }, headers);

describe('store credit in GraphQL', () => {
  it('issues credit once per key and shows staff the balance and the ledger, and the customer their balance', async () => {
    const first = await api.data<{ issueStoreCredit: Record<string, unknown> }>(
      ISSUE,
      { input: { customerId, currency: 'EUR', amount: '25.00', note: 'late parcel', idempotencyKey: 'gql-credit-1' } },
      admin,
    );
    expect(first.issueStoreCredit).toMatchObject({
      customerId,
      currency: 'EUR',
      balance: '25.00',
      entries: [{ kind: 'CREDIT', status: 'POSTED', amount: '25.00', note: 'late parcel' }],
    });
    expect((await issue({ amount: '25.00', note: 'late parcel', idempotencyKey: 'gql-credit-1' })).data?.issueStoreCredit.balance).toBe(
      '25.00',
    );
    expect((await issue({ amount: '4.50', note: 'sorry again', idempotencyKey: 'gql-credit-2' })).data?.issueStoreCredit.balance).toBe(
      '29.50',
    );

    const { storeCreditAccount } = await api.data<{ storeCreditAccount: { balance: string; entries: { amount: string }[] } }>(
      ACCOUNT,
      { customerId, currency: 'EUR' },
      admin,
    );
    expect(storeCreditAccount.balance).toBe('29.50');
    expect(storeCreditAccount.entries.map((entry) => entry.amount)).toEqual(['4.50', '25.00']);
    expect(await api.data(ACCOUNT, { customerId, currency: 'USD' }, admin)).toEqual({ storeCreditAccount: null });

    expect(await api.data('query { myStoreCredit { currency balance } }', {}, customer)).toEqual({
      myStoreCredit: [{ currency: 'EUR', balance: '29.50' }],
    });
    const { rows } = await api.platform.database.pool.query<{ payload: Record<string, unknown> }>(
      "SELECT payload FROM outbox_events WHERE name = 'shop.payments.store_credit_moved.v1' AND payload->>'customer_id' = $1 ORDER BY id",
      [customerId],
    );
    expect(rows.map((row) => row.payload)).toMatchObject([
      { entry_kind: 'CREDIT', entry_status: 'POSTED', amount: '25.00', balance: '25.00' },
      { entry_kind: 'CREDIT', entry_status: 'POSTED', amount: '4.50', balance: '29.50' },
    ]);
  });

  it('refuses a bad amount, a reused key and an unknown customer with a 4xx naming the field', async () => {
    expect(
      await api.error(ISSUE, { input: { customerId, currency: 'EUR', amount: '-1', note: 'x', idempotencyKey: 'gql-bad-1' } }, admin),
    ).toMatchObject({
      extensions: { code: 'BAD_USER_INPUT', field: 'amount' },
    });
    expect(
      await api.error(ISSUE, { input: { customerId, currency: 'eur', amount: '1.00', note: 'x', idempotencyKey: 'gql-bad-2' } }, admin),
    ).toMatchObject({
      extensions: { code: 'BAD_USER_INPUT', field: 'currency' },
    });
    expect(
      await api.error(ISSUE, { input: { customerId, currency: 'EUR', amount: '1.00', note: ' ', idempotencyKey: 'gql-bad-3' } }, admin),
    ).toMatchObject({
      extensions: { code: 'BAD_USER_INPUT', field: 'note' },
    });
    expect(
      await api.error(ISSUE, { input: { customerId, currency: 'EUR', amount: '99.00', note: 'x', idempotencyKey: 'gql-credit-1' } }, admin),
    ).toMatchObject({
      extensions: { code: 'CONFLICT', field: 'idempotencyKey' },
    });
    expect(
      await api.error(
        ISSUE,
        { input: { customerId: '999999', currency: 'EUR', amount: '1.00', note: 'x', idempotencyKey: 'gql-bad-4' } },
        admin,
      ),
    ).toMatchObject({
      extensions: { code: 'NOT_FOUND', field: 'customerId' },
    });
  });

  it('is for staff with store_credit.issue to issue and customers.read to read', async () => {
    await api.prisma.$transaction(async (tx) => {
      await ensureRole(tx, { name: 'support-reader', permissions: ['customers.read'] });
      await createStaffUser(tx, { email: 'reader@shop.test', password: 'reader-password-1', name: 'Reader', roles: ['support-reader'] });
    });
    const { loginStaff } = await api.data<{ loginStaff: { accessToken: string } }>(
      'mutation { loginStaff(email: "reader@shop.test", password: "reader-password-1") { accessToken } }',
    );
    const reader = bearer(loginStaff.accessToken);

    expect(
      await api.error(ISSUE, { input: { customerId, currency: 'EUR', amount: '1.00', note: 'x', idempotencyKey: 'gql-reader' } }, reader),
    ).toMatchObject({
      extensions: { code: 'FORBIDDEN', permission: 'store_credit.issue' },
    });
    expect(
      (await api.data<{ storeCreditAccount: { balance: string } }>(ACCOUNT, { customerId, currency: 'EUR' }, reader)).storeCreditAccount
        .balance,
    ).toBe('29.50');
    expect(await api.error(ACCOUNT, { customerId, currency: 'EUR' }, customer)).toMatchObject({ extensions: { code: 'FORBIDDEN' } });
    expect(await api.error('query { myStoreCredit { balance } }', {}, admin)).toMatchObject({ extensions: { code: 'UNAUTHENTICATED' } });
  });

  it("pays a customer's order with store credit first, shown as a STORE_CREDIT tender", async () => {
    const { createProduct } = await api.data<{ createProduct: { id: string } }>(
      'mutation ($input: ProductInput!) { createProduct(input: $input) { id } }',
      {
        input: {
          sku: 'CREDIT-1',
          name: 'Credit product',
          slug: 'credit-product-1',
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
    const { createCart } = await api.data<{ createCart: { id: string } }>('mutation { createCart { id } }', {}, { ...WEB, ...customer });
    await api.data(
      'mutation ($cartId: ID!, $productId: ID!) { addCartLine(cartId: $cartId, productId: $productId, quantity: 2) { id } }',
      { cartId: createCart.id, productId: createProduct.id },
      { ...WEB, ...customer },
    );
    const address = { name: 'Ada Lovelace', line1: 'Main Street 1', postalCode: '10115', city: 'Berlin', countryCode: 'DE' };
    const input = {
      cartId: createCart.id,
      email: 'credit@example.com',
      billingAddress: address,
      idempotencyKey: 'gql-credit-order-1',
      useStoreCredit: true,
    };

    const { placeOrder } = await api.data<{ placeOrder: { status: string; total: string; tenders: unknown[] } }>(
      'mutation ($input: PlaceOrderInput!) { placeOrder(input: $input) { status total tenders { kind status authorized captured authorizationExpiresAt } } }',
      { input },
      { ...WEB, ...customer },
    );
    expect(placeOrder).toEqual({
      status: 'PLACED',
      total: '25.00',
      tenders: [{ kind: 'STORE_CREDIT', status: 'CAPTURED', authorized: '25.00', captured: '25.00', authorizationExpiresAt: null }],
    });
    expect(await api.data('query { myStoreCredit { currency balance } }', {}, customer)).toEqual({
      myStoreCredit: [{ currency: 'EUR', balance: '4.50' }],
    });
  });

  it('issues a gift card once per key, and its code pays at checkout', async () => {
    const ISSUE_GIFT_CARD = 'mutation ($input: IssueGiftCardInput!) { issueGiftCard(input: $input) { code currency balance } }';
    const input = { currency: 'EUR', amount: '30.00', note: 'raffle prize', idempotencyKey: 'gql-gift-1' };
    const { issueGiftCard } = await api.data<{ issueGiftCard: { code: string; currency: string; balance: string } }>(
      ISSUE_GIFT_CARD,
      { input },
      admin,
    );
    expect(issueGiftCard).toEqual({ code: expect.stringMatching(/^[A-Z2-7]{16}$/), currency: 'EUR', balance: '30.00' });
    expect(await api.data(ISSUE_GIFT_CARD, { input }, admin)).toEqual({ issueGiftCard });
    expect(await api.error(ISSUE_GIFT_CARD, { input }, customer)).toMatchObject({ extensions: { code: 'FORBIDDEN' } });

    const { createProduct } = await api.data<{ createProduct: { id: string } }>(
      'mutation ($input: ProductInput!) { createProduct(input: $input) { id } }',
      { input: { sku: 'GIFT-1', name: 'Gift product', slug: 'gift-product-1', price: '12.50', currency: 'EUR', channelIds: [channelId] } },
      admin,
    );
    await api.data(
      'mutation ($input: SetStockOnHandInput!) { setStockOnHand(input: $input) { onHand } }',
      { input: { productId: createProduct.id, locationId, onHand: 5, reason: 'restock' } },
      admin,
    );
    const guest = { ...WEB, 'x-session-id': await api.guestSession() };
    const { createCart } = await api.data<{ createCart: { id: string } }>('mutation { createCart { id } }', {}, guest);
    await api.data(
      'mutation ($cartId: ID!, $productId: ID!) { addCartLine(cartId: $cartId, productId: $productId, quantity: 2) { id } }',
      { cartId: createCart.id, productId: createProduct.id },
      guest,
    );
    const address = { name: 'Ada Lovelace', line1: 'Main Street 1', postalCode: '10115', city: 'Berlin', countryCode: 'DE' };
    const order = {
      cartId: createCart.id,
      email: 'guest@example.com',
      billingAddress: address,
      idempotencyKey: 'gql-gift-order-1',
      giftCardCode: issueGiftCard.code,
    };
    const { placeOrder } = await api.data<{ placeOrder: unknown }>(
      'mutation ($input: PlaceOrderInput!) { placeOrder(input: $input) { status tenders { kind status captured } } }',
      { input: order },
      guest,
    );
    expect(placeOrder).toEqual({ status: 'PLACED', tenders: [{ kind: 'GIFT_CARD', status: 'CAPTURED', captured: '25.00' }] });
  });
});
