// Returns through GraphQL: a customer drafts and submits a return of their own fulfilled order, staff
// with returns.manage receive it in parts, and the order shows its returns to whoever reads it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStaffUser, ensureRole } from '@shop/domain/auth';
import { bearer, openGraphqlApi, seedDemoShop, type GraphqlApi } from '../support/graphql-harness.ts';

const WEB = { 'x-channel-id': 'web' };
const RETURN_FIELDS =
  'id orderId orderNumber status reason requestedAt receivedAt closedAt lines { orderLineId sku unitPrice quantityRequested quantityReceived }';
const CREATE_MINE = `mutation ($input: CreateReturnInput!) { createMyReturn(input: $input) { ${RETURN_FIELDS} } }`;
const SUBMIT_MINE = `mutation ($id: ID!) { submitMyReturn(id: $id) { ${RETURN_FIELDS} } }`;
const CREATE = `mutation ($input: CreateReturnInput!) { createReturn(input: $input) { ${RETURN_FIELDS} } }`;
const RECEIVE = `mutation ($input: ReceiveReturnInput!) { receiveReturn(input: $input) { ${RETURN_FIELDS} } }`;
const CANCEL = `mutation ($id: ID!) { cancelReturn(id: $id) { ${RETURN_FIELDS} } }`;
const CLOSE = `mutation ($id: ID!) { closeReturn(id: $id) { ${RETURN_FIELDS} } }`;

interface ReturnView {
  id: string;
  status: string;
  lines: { orderLineId: string; quantityRequested: number; quantityReceived: number }[];
}

let api: GraphqlApi;
let admin: Record<string, string>;
let customer: Record<string, string>;
let channelId: string;
let locationId: string;
let products = 0;

async function signedUpCustomer(email: string): Promise<Record<string, string>> {
  const { registerCustomer } = await api.data<{ registerCustomer: { accessToken: string } }>(
    'mutation ($email: String!) { registerCustomer(input: { email: $email, password: "returns-password-1" }) { accessToken } }',
    { email },
    WEB,
  );
  return bearer(registerCustomer.accessToken);
}

/** A FULFILLED order of the customer: 3 units at 12.50 and 1 at 4.00, marked paid by staff or paid with their store credit; its id and line ids. */
async function fulfilledOrder(headers: Record<string, string>, { storeCredit = false } = {}): Promise<{ id: string; lineIds: string[] }> {
  const productIds = [];
  for (const price of ['12.50', '4.00']) {
    products += 1;
    const { createProduct } = await api.data<{ createProduct: { id: string } }>(
      'mutation ($input: ProductInput!) { createProduct(input: $input) { id } }',
      {
        input: {
          sku: `RMA-${products}`,
          name: `Returnable ${products}`,
          slug: `returnable-${products}`,
          price,
          currency: 'EUR',
          channelIds: [channelId],
        },
      },
      admin,
    );
    await api.data(
      'mutation ($input: SetStockOnHandInput!) { setStockOnHand(input: $input) { onHand } }',
      { input: { productId: createProduct.id, locationId, onHand: 10, reason: 'restock' } },
      admin,
    );
    productIds.push(createProduct.id);
  }
  const shopper = { ...WEB, ...headers };
  const { createCart } = await api.data<{ createCart: { id: string } }>('mutation { createCart { id } }', {}, shopper);
  for (const [index, productId] of productIds.entries()) {
    await api.data(
      'mutation ($cartId: ID!, $productId: ID!, $quantity: Int!) { addCartLine(cartId: $cartId, productId: $productId, quantity: $quantity) { id } }',
      { cartId: createCart.id, productId, quantity: index === 0 ? 3 : 1 },
      shopper,
    );
  }
  const address = { name: 'Ada Lovelace', line1: 'Main Street 1', postalCode: '10115', city: 'Berlin', countryCode: 'DE' };
  const { placeOrder } = await api.data<{ placeOrder: { id: string; lines: { id: string; productId: string }[] } }>(
    'mutation ($input: PlaceOrderInput!) { placeOrder(input: $input) { id lines { id productId } } }',
    {
      input: {
        cartId: createCart.id,
        email: 'returns@example.com',
        billingAddress: address,
        ...(storeCredit ? { useStoreCredit: true, idempotencyKey: `checkout-${createCart.id}` } : {}),
      },
    },
    shopper,
  );
  if (!storeCredit) await api.data('mutation ($id: ID!) { markOrderPaid(id: $id) { status } }', { id: placeOrder.id }, admin);
  await api.data('mutation ($id: ID!) { fulfilOrder(id: $id) { status } }', { id: placeOrder.id }, admin);
  return {
    id: placeOrder.id,
    lineIds: productIds.map((productId) => placeOrder.lines.find((line) => line.productId === productId)?.id ?? ''),
  };
}

beforeAll(async () => {
  api = await openGraphqlApi('graphql_returns');
  ({ admin, channelId, locationId } = await seedDemoShop(api));
  customer = await signedUpCustomer('returner@example.com');
});

afterAll(async () => {
  await api?.close();
});

describe('returns in GraphQL', () => {
  it('lets a customer draft and submit a return of their order, and staff receive it in parts', async () => {
    const order = await fulfilledOrder(customer);
    const [shirt, mug] = order.lineIds;
    const { createMyReturn } = await api.data<{ createMyReturn: ReturnView }>(
      CREATE_MINE,
      {
        input: {
          orderId: order.id,
          reason: 'too small',
          lines: [
            { orderLineId: shirt, quantity: 2 },
            { orderLineId: mug, quantity: 1 },
          ],
        },
      },
      customer,
    );
    expect(createMyReturn).toMatchObject({ orderId: order.id, status: 'DRAFT', reason: 'too small', requestedAt: null });
    expect(createMyReturn.lines).toEqual([
      { orderLineId: shirt, sku: expect.stringMatching(/^RMA-/), unitPrice: '12.50', quantityRequested: 2, quantityReceived: 0 },
      { orderLineId: mug, sku: expect.stringMatching(/^RMA-/), unitPrice: '4.00', quantityRequested: 1, quantityReceived: 0 },
    ]);
    const { submitMyReturn } = await api.data<{ submitMyReturn: ReturnView & { requestedAt: string } }>(
      SUBMIT_MINE,
      { id: createMyReturn.id },
      customer,
    );
    expect(submitMyReturn.status).toBe('REQUESTED');
    expect(submitMyReturn.requestedAt).not.toBeNull();

    const receipt = (lines: unknown[], idempotencyKey: string) =>
      api.data<{ receiveReturn: ReturnView }>(RECEIVE, { input: { returnId: createMyReturn.id, lines, idempotencyKey } }, admin);
    expect((await receipt([{ orderLineId: shirt, quantity: 1 }], 'gql-receipt-1')).receiveReturn.status).toBe('PARTIALLY_RECEIVED');
    expect(
      (await receipt([{ orderLineId: shirt, quantity: 1 }], 'gql-receipt-1')).receiveReturn.lines.map((line) => line.quantityReceived),
    ).toEqual([1, 0]);
    const done = (
      await receipt(
        [
          { orderLineId: shirt, quantity: 1 },
          { orderLineId: mug, quantity: 1 },
        ],
        'gql-receipt-2',
      )
    ).receiveReturn;
    expect(done.status).toBe('RECEIVED');
    expect(done.lines.map((line) => line.quantityReceived)).toEqual([2, 1]);

    const { myOrders } = await api.data<{ myOrders: { nodes: { id: string; returns: ReturnView[] }[] } }>(
      'query { myOrders { nodes { id returns { id status } } } }',
      {},
      customer,
    );
    expect(myOrders.nodes.find((node) => node.id === order.id)?.returns).toEqual([{ id: createMyReturn.id, status: 'RECEIVED' }]);
    expect(await api.data('query ($id: ID!) { order(id: $id) { returns { id status } } }', { id: order.id }, admin)).toEqual({
      order: { returns: [{ id: createMyReturn.id, status: 'RECEIVED' }] },
    });
    expect(await api.data('query ($id: ID!) { returnAuthorization(id: $id) { status } }', { id: createMyReturn.id }, admin)).toEqual({
      returnAuthorization: { status: 'RECEIVED' },
    });
    expect(await api.data('query ($id: ID!) { myReturnAuthorization(id: $id) { status } }', { id: createMyReturn.id }, customer)).toEqual({
      myReturnAuthorization: { status: 'RECEIVED' },
    });
    const receipts = await api.prisma.returnReceipt.findMany({
      where: { returnAuthorizationId: BigInt(createMyReturn.id) },
      orderBy: { id: 'asc' },
    });
    expect(receipts.map((row) => [row.idempotencyKey, row.amount.toFixed(2), row.currency])).toEqual([
      ['gql-receipt-1', '12.50', 'EUR'],
      ['gql-receipt-2', '16.50', 'EUR'],
    ]);
  });

  it('refuses what cannot be returned with BAD_USER_INPUT naming the field', async () => {
    const order = await fulfilledOrder(customer);
    const [shirt] = order.lineIds;
    const create = (lines: unknown[], headers = customer, reason = 'broken') =>
      api.error(CREATE_MINE, { input: { orderId: order.id, reason, lines } }, headers);

    const tooMany = await create([{ orderLineId: shirt, quantity: 4 }]);
    expect(tooMany).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'lines[0].quantity', returnable: 3 } });
    expect(tooMany.message).toMatch(/^4 units of RMA-\d+ asked back, but only 3 of the 3 ordered can still be returned/);
    expect(await create([{ orderLineId: 'x', quantity: 1 }])).toMatchObject({
      extensions: { code: 'BAD_USER_INPUT', field: 'lines[0].orderLineId' },
    });
    expect(await create([])).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'lines' } });
    expect(await create([{ orderLineId: shirt, quantity: 1 }], customer, ' ')).toMatchObject({
      extensions: { code: 'BAD_USER_INPUT', field: 'reason' },
    });
    expect(await create([{ orderLineId: shirt, quantity: 1 }], await signedUpCustomer('other@example.com'))).toMatchObject({
      extensions: { code: 'NOT_FOUND', field: 'orderId' },
    });

    const { createReturn } = await api.data<{ createReturn: ReturnView }>(
      CREATE,
      { input: { orderId: order.id, reason: 'wrong colour', lines: [{ orderLineId: shirt, quantity: 3 }] } },
      admin,
    );
    expect(await create([{ orderLineId: shirt, quantity: 1 }])).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', returnable: 0 } });
    const early = await api.error(
      RECEIVE,
      { input: { returnId: createReturn.id, lines: [{ orderLineId: shirt, quantity: 1 }], idempotencyKey: 'gql-early' } },
      admin,
    );
    expect(early).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'returnId' } });
    expect(early.message).toBe(
      `return ${createReturn.id} is DRAFT: it cannot be received (a DRAFT return can only be submitted, cancelled or expired)`,
    );
    expect((await api.data<{ cancelReturn: ReturnView }>(CANCEL, { id: createReturn.id }, admin)).cancelReturn.status).toBe('CANCELLED');
    expect(
      (
        await api.data<{ createMyReturn: ReturnView }>(
          CREATE_MINE,
          { input: { orderId: order.id, reason: 'broken', lines: [{ orderLineId: shirt, quantity: 3 }] } },
          customer,
        )
      ).createMyReturn.status,
    ).toBe('DRAFT');
  });

  it('lets staff close a partly received return whose other units will not come', async () => {
    const order = await fulfilledOrder(customer);
    const [shirt] = order.lineIds;
    const { createReturn } = await api.data<{ createReturn: ReturnView }>(
      CREATE,
      { input: { orderId: order.id, reason: 'two lost', lines: [{ orderLineId: shirt, quantity: 3 }] } },
      admin,
    );
    await api.data('mutation ($id: ID!) { submitReturn(id: $id) { status } }', { id: createReturn.id }, admin);
    const requested = await api.error(CLOSE, { id: createReturn.id }, admin);
    expect(requested).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'returnId', status: 'REQUESTED' } });
    expect(requested.message).toBe(
      `return ${createReturn.id} is REQUESTED: it cannot be closed (a REQUESTED return can only be received, cancelled or expired)`,
    );
    await api.data(
      RECEIVE,
      { input: { returnId: createReturn.id, lines: [{ orderLineId: shirt, quantity: 1 }], idempotencyKey: 'gql-close-1' } },
      admin,
    );
    expect(await api.error(CLOSE, { id: createReturn.id }, customer)).toMatchObject({ extensions: { code: 'FORBIDDEN' } });

    const { closeReturn } = await api.data<{ closeReturn: ReturnView & { closedAt: string | null; receivedAt: string | null } }>(
      CLOSE,
      { id: createReturn.id },
      admin,
    );
    expect(closeReturn).toMatchObject({ status: 'CLOSED', receivedAt: null, closedAt: expect.any(String) });
    expect(closeReturn.lines.map((line) => [line.quantityRequested, line.quantityReceived])).toEqual([[3, 1]]);
    expect(await api.error(CLOSE, { id: createReturn.id }, admin)).toMatchObject({
      extensions: { code: 'BAD_USER_INPUT', status: 'CLOSED' },
    });
  });

  it('lets staff credit a return in advance to store credit, with payments.refund too, and claws it back on cancel', async () => {
    const buyer = await signedUpCustomer('credited@example.com');
    const { me } = await api.data<{ me: { id: string } }>('query { me { id } }', {}, buyer);
    await api.data(
      'mutation ($input: IssueStoreCreditInput!) { issueStoreCredit(input: $input) { balance } }',
      { input: { customerId: me.id, currency: 'EUR', amount: '200.00', note: 'to spend', idempotencyKey: 'gql-credit-returns' } },
      admin,
    );
    const order = await fulfilledOrder(buyer, { storeCredit: true });
    const balance = async () =>
      (
        await api.data<{ myStoreCredit: { currency: string; balance: string }[] }>(
          'query { myStoreCredit { currency balance } }',
          {},
          buyer,
        )
      ).myStoreCredit;
    const [{ balance: afterCheckout = '' } = {}] = await balance();
    const { createReturn } = await api.data<{ createReturn: ReturnView }>(
      CREATE,
      { input: { orderId: order.id, reason: 'never fitted', lines: [{ orderLineId: order.lineIds[0], quantity: 2 }] } },
      admin,
    );
    const SUBMIT = `mutation ($id: ID!, $credit: Boolean) { submitReturn(id: $id, creditInAdvance: $credit) { ${RETURN_FIELDS} receiptDueAt } }`;
    const SET = 'mutation ($value: JSON!) { setSetting(key: "workflows", value: $value) }';
    expect((await api.error(SET, { value: { refundClawbackOverdraftHours: 0 } }, admin)).extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'value.refundClawbackOverdraftHours',
    });
    await api.data(SET, { value: { returnReceiptWindowHours: 48, refundClawbackOverdraftHours: 24 } }, admin);

    await api.prisma.$transaction(async (tx) => {
      await ensureRole(tx, { name: 'returns-clerk', permissions: ['returns.manage'] });
      await createStaffUser(tx, {
        email: 'returns-clerk@shop.test',
        password: 'clerk-password-1',
        name: 'Clerk',
        roles: ['returns-clerk'],
      });
    });
    const { loginStaff } = await api.data<{ loginStaff: { accessToken: string } }>(
      'mutation { loginStaff(email: "returns-clerk@shop.test", password: "clerk-password-1") { accessToken } }',
    );
    const clerk = bearer(loginStaff.accessToken);
    expect(await api.error(SUBMIT, { id: createReturn.id, credit: true }, clerk)).toMatchObject({
      extensions: { code: 'FORBIDDEN', permission: 'payments.refund' },
    });
    expect(
      await api.data('query ($id: ID!) { returnAuthorization(id: $id) { status receiptDueAt } }', { id: createReturn.id }, admin),
    ).toEqual({
      returnAuthorization: { status: 'DRAFT', receiptDueAt: null },
    });

    const { submitReturn } = await api.data<{ submitReturn: ReturnView & { requestedAt: string; receiptDueAt: string } }>(
      SUBMIT,
      { id: createReturn.id, credit: true },
      admin,
    );
    expect(submitReturn.status).toBe('REQUESTED');
    expect(Date.parse(submitReturn.receiptDueAt) - Date.parse(submitReturn.requestedAt)).toBe(48 * 60 * 60_000);
    await api.data(SET, { value: {} }, admin);
    const cents = (amount: string) => Math.round(Number(amount) * 100);
    expect(cents((await balance())[0]?.balance ?? '') - cents(afterCheckout)).toBe(2500);
    const { order: refunded } = await api.data<{
      order: {
        refundRequests: {
          amount: string;
          source: string;
          rmaId: string;
          status: string;
          refunds: { destination: string; status: string }[];
        }[];
      };
    }>(
      'query ($id: ID!) { order(id: $id) { refundRequests { amount source rmaId status refunds { destination status } } } }',
      { id: order.id },
      admin,
    );
    expect(refunded.refundRequests).toEqual([
      {
        amount: '25.00',
        source: 'RMA',
        rmaId: createReturn.id,
        status: 'SUCCEEDED',
        refunds: [{ destination: 'STORE_CREDIT', status: 'SUCCEEDED' }],
      },
    ]);

    expect((await api.data<{ cancelReturn: ReturnView }>(CANCEL, { id: createReturn.id }, admin)).cancelReturn.status).toBe('CANCELLED');
    expect((await balance())[0]?.balance).toBe(afterCheckout);
    const { storeCreditAccount } = await api.data<{ storeCreditAccount: { entries: { kind: string; status: string; amount: string }[] } }>(
      'query ($customerId: ID!) { storeCreditAccount(customerId: $customerId, currency: "EUR") { entries(first: 2) { kind status amount } } }',
      { customerId: me.id },
      admin,
    );
    expect(storeCreditAccount.entries).toEqual([
      { kind: 'DEBIT', status: 'POSTED', amount: '25.00' },
      { kind: 'CREDIT', status: 'POSTED', amount: '25.00' },
    ]);
  });

  it('is for staff with returns.manage to change and orders.read to read, and for the owner', async () => {
    const order = await fulfilledOrder(customer);
    await api.prisma.$transaction(async (tx) => {
      await ensureRole(tx, { name: 'order-reader', permissions: ['orders.read'] });
      await createStaffUser(tx, {
        email: 'order-reader@shop.test',
        password: 'reader-password-1',
        name: 'Reader',
        roles: ['order-reader'],
      });
    });
    const { loginStaff } = await api.data<{ loginStaff: { accessToken: string } }>(
      'mutation { loginStaff(email: "order-reader@shop.test", password: "reader-password-1") { accessToken } }',
    );
    const reader = bearer(loginStaff.accessToken);
    const input = { orderId: order.id, reason: 'broken', lines: [{ orderLineId: order.lineIds[1], quantity: 1 }] };

    expect(await api.error(CREATE, { input }, reader)).toMatchObject({ extensions: { code: 'FORBIDDEN', permission: 'returns.manage' } });
    expect(await api.error(CREATE, { input }, customer)).toMatchObject({ extensions: { code: 'FORBIDDEN' } });
    expect(await api.error(CREATE_MINE, { input }, admin)).toMatchObject({ extensions: { code: 'UNAUTHENTICATED' } });
    const { createMyReturn } = await api.data<{ createMyReturn: ReturnView }>(CREATE_MINE, { input }, customer);
    expect(await api.data('query ($id: ID!) { returnAuthorization(id: $id) { status } }', { id: createMyReturn.id }, reader)).toEqual({
      returnAuthorization: { status: 'DRAFT' },
    });
    const stranger = await signedUpCustomer('stranger@example.com');
    expect(
      await api.error('query ($id: ID!) { myReturnAuthorization(id: $id) { status } }', { id: createMyReturn.id }, stranger),
    ).toMatchObject({ extensions: { code: 'NOT_FOUND' } });
    expect(await api.error(SUBMIT_MINE, { id: createMyReturn.id }, stranger)).toMatchObject({ extensions: { code: 'NOT_FOUND' } });
  });
});
