// Refunds through GraphQL, with the api configured for the real test gateway and no workflow engine:
// staff with payments.refund request a refund of a fulfilled order, the api's in-process engine
// runs it (as `npm start` does), staff and the customer see it on the order, and a declined refund
// is sent to store credit. Asserted on the gateway's own log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GATEWAY_API_KEY_SECRET,
  givenCredentials,
  HttpPaymentGateway,
  InProcessWorkflowEngine,
  setStoredSecret,
  workflowMetrics,
  type EventListener,
  type EventPayloads,
} from '@shop/platform';
import { createStaffUser, ensureRole } from '@shop/domain/auth';
import { STRANDED_AFTER_MINUTES, type SweepPassDeps } from '@shop/domain/flows';
import { type DomainDeps } from '@shop/domain/kernel';
import { captureOrderTenders, GATEWAY_TRANSACTION } from '@shop/domain/tenders';
import { sweepPace } from '@shop/domain/workflow-runs';
import { WORKFLOW_TYPES } from '@shop/domain/workflows';
import { startTestGateway, TestGatewayControl, type RunningTestGateway } from '../../../../tools/test-gateway/src/index.ts';
import { createTestDatabase, type TestDatabase } from '../../../../test/infra/isolation.ts';
import { IN_PROCESS_SWEEPS, IN_PROCESS_WORKFLOWS } from '../../src/workflows/in-process-workflows.ts';
import { workflowTriggers, type ShopWorkflowInputs } from '../../src/workflows/workflow-triggers.ts';
import { bearer, openGraphqlApi, seedDemoShop, type GraphqlApi } from '../support/graphql-harness.ts';

const API_KEY = 'graphql_refunds_gateway_key';
const WEB = { 'x-channel-id': 'web' };
const ADDRESS = { name: 'Ada Lovelace', line1: 'Main Street 1', postalCode: '10115', city: 'Berlin', countryCode: 'DE' };
const REQUEST_FIELDS =
  'id orderId status amount currency reason source rmaId refunds { id tenderKind amount destination status attempt lastError }';
const REQUEST_REFUND = `mutation ($input: RequestRefundInput!) { requestRefund(input: $input) { ${REQUEST_FIELDS} } }`;

let gatewayDatabase: TestDatabase;
let gateway: RunningTestGateway;
let control: TestGatewayControl;
let api: GraphqlApi;
let admin: Record<string, string>;
let customer: Record<string, string>;
let channelId: string;
let locationId: string;
let deps: DomainDeps;
/** The api's in-process workflows; its sweeps are run by hand below. */
let inProcess: InProcessWorkflowEngine<ShopWorkflowInputs, SweepPassDeps>;
let refundTrigger: EventListener;

beforeAll(async () => {
  gatewayDatabase = await createTestDatabase('graphql_refunds_gateway');
  gateway = await startTestGateway({ databaseUrl: gatewayDatabase.url, apiKey: API_KEY });
  control = new TestGatewayControl(gateway.url, API_KEY);
  api = await openGraphqlApi('graphql_refunds', { PAYMENT_GATEWAY_URL: gateway.url });
  await setStoredSecret(api.prisma, api.platform.masterKeys, {
    key: GATEWAY_API_KEY_SECRET,
    value: API_KEY,
    setAt: new Date(),
    setByStaffUserId: null,
  });
  ({ channelId, locationId, admin } = await seedDemoShop(api));
  deps = {
    emit: api.outbox.emit,
    now: () => new Date(),
    gateway: new HttpPaymentGateway({ baseUrl: gateway.url, credentials: givenCredentials(API_KEY) }),
  };
  inProcess = new InProcessWorkflowEngine({ logger: api.platform.logger, workflows: IN_PROCESS_WORKFLOWS, sweeps: [] });
  inProcess.begin(() => ({
    transaction: api.outbox.transaction,
    deps,
    metrics: workflowMetrics(api.platform.metrics),
    pace: sweepPace(1_000),
  }));
  const trigger = workflowTriggers(inProcess).find((listener) => listener.event === 'payments.refund_requested');
  if (trigger === undefined) throw new Error('the in-process engine takes no refund requests');
  refundTrigger = trigger;
  const { registerCustomer } = await api.data<{ registerCustomer: { accessToken: string } }>(
    'mutation { registerCustomer(input: { email: "refunded@example.com", password: "refund-password-1" }) { accessToken } }',
    {},
    WEB,
  );
  customer = bearer(registerCustomer.accessToken);
});

afterAll(async () => {
  await inProcess?.stop();
  await api?.close();
  await gateway?.close();
  await gatewayDatabase?.drop();
});

interface RefundRequest {
  readonly id: string;
  readonly status: string;
  readonly refunds: readonly { readonly id: string; readonly status: string; readonly [field: string]: unknown }[];
  readonly [field: string]: unknown;
}

let orders = 0;

/** The customer's order of 2 × 12.50 paid by card (token `tok_<name>`), fulfilled by staff and captured (the capture is a workflow step, done here by hand). */
async function fulfilledOrder(name: string): Promise<{ id: string; authorizationId: string }> {
  orders += 1;
  const { createProduct } = await api.data<{ createProduct: { id: string } }>(
    'mutation ($input: ProductInput!) { createProduct(input: $input) { id } }',
    {
      input: {
        sku: `REFUND-${orders}`,
        name: `Refund product ${orders}`,
        slug: `refund-product-${orders}`,
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
  const headers = { ...WEB, ...customer };
  const { createCart } = await api.data<{ createCart: { id: string } }>('mutation { createCart { id } }', {}, headers);
  await api.data(
    'mutation ($cartId: ID!, $productId: ID!) { addCartLine(cartId: $cartId, productId: $productId, quantity: 2) { id } }',
    { cartId: createCart.id, productId: createProduct.id },
    headers,
  );
  const input = {
    cartId: createCart.id,
    email: 'refunded@example.com',
    billingAddress: ADDRESS,
    idempotencyKey: `graphql-refund-${name}`,
    card: { token: `tok_${name}` },
  };
  const { placeOrder } = await api.data<{ placeOrder: { id: string } }>(
    'mutation ($input: PlaceOrderInput!) { placeOrder(input: $input) { id } }',
    { input },
    headers,
  );
  await api.data('mutation ($id: ID!) { fulfilOrder(id: $id) { status } }', { id: placeOrder.id }, admin);
  await api.outbox.transaction((tx) => captureOrderTenders(tx, deps, BigInt(placeOrder.id)), GATEWAY_TRANSACTION);
  const tender = await api.prisma.paymentTender.findFirstOrThrow({ where: { orderId: BigInt(placeOrder.id) } });
  return { id: placeOrder.id, authorizationId: tender.gatewayReference };
}

/** The request's payments.refund_requested events, in order. */
async function refundRequestedEvents(requestId: string): Promise<EventPayloads['payments.refund_requested'][]> {
  const events = await api.prisma.outboxEvent.findMany({
    where: { name: 'payments.refund_requested', payload: { path: ['refund_request_id'], equals: requestId } },
    orderBy: { id: 'asc' },
  });
  return events.map((event) => event.payload as unknown as EventPayloads['payments.refund_requested']);
}

/** Each payments.refund_requested of the request handed to the api's refund trigger on the in-process engine, as the dispatcher does (in a delivery transaction of Prisma's default 5 s), then the runs it queued. */
async function runInProcess(requestId: string): Promise<void> {
  for (const event of await refundRequestedEvents(requestId)) await api.prisma.$transaction((tx) => refundTrigger.handle(tx, event));
  await inProcess.idle();
}

const refundsAt = async (authorizationId: string) =>
  (await control.operations())
    .filter((operation) => operation.kind === 'refund' && operation.authorizationId === authorizationId)
    .map((operation) => [operation.status, operation.amount.amountMinor]);

const ORDER_REFUNDS = `query ($id: ID!) { order(id: $id) { refundRequests { ${REQUEST_FIELDS} } } }`;

describe('refunds in GraphQL', () => {
  it('requests a refund once per key, runs it in-process, and shows it to staff and to the customer', async () => {
    const order = await fulfilledOrder('graphql-refund');
    const input = { orderId: order.id, amount: '7.50', reason: 'one item returned', idempotencyKey: 'gql-refund-1' };
    const { requestRefund } = await api.data<{ requestRefund: RefundRequest }>(REQUEST_REFUND, { input }, admin);
    expect(requestRefund).toMatchObject({
      orderId: order.id,
      status: 'REQUESTED',
      amount: '7.50',
      currency: 'EUR',
      source: 'STAFF',
      rmaId: null,
      refunds: [{ tenderKind: 'CARD', amount: '7.50', destination: 'ORIGINAL', status: 'REQUESTED', attempt: 1, lastError: null }],
    });
    expect((await api.data<{ requestRefund: RefundRequest }>(REQUEST_REFUND, { input }, admin)).requestRefund.id).toBe(requestRefund.id);

    await runInProcess(requestRefund.id);
    // A redelivered event runs nothing twice.
    await runInProcess(requestRefund.id);
    expect(await refundsAt(order.authorizationId)).toEqual([['approved', 750]]);

    const { order: seen } = await api.data<{ order: { refundRequests: RefundRequest[] } }>(ORDER_REFUNDS, { id: order.id }, admin);
    expect(seen.refundRequests).toMatchObject([
      { id: requestRefund.id, status: 'SUCCEEDED', refunds: [{ status: 'SUCCEEDED', amount: '7.50' }] },
    ]);
    const mine = await api.data<{ myOrders: { nodes: { id: string; refundRequests: RefundRequest[] }[] } }>(
      'query { myOrders { nodes { id refundRequests { status amount } } } }',
      {},
      customer,
    );
    expect(mine.myOrders.nodes.find((node) => node.id === order.id)?.refundRequests).toEqual([{ status: 'SUCCEEDED', amount: '7.50' }]);

    const tooMuch = await api.error(REQUEST_REFUND, { input: { ...input, amount: '20.00', idempotencyKey: 'gql-refund-2' } }, admin);
    expect(tooMuch).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'amount', refundable: '17.50' } });
    expect(await api.error(REQUEST_REFUND, { input: { ...input, amount: '1.00' } }, admin)).toMatchObject({
      extensions: { code: 'CONFLICT', field: 'idempotencyKey' },
    });
  });

  it('commits the delivery at once while the gateway holds the refund, and runs the request again once the reconciliation finds it stranded', async () => {
    const order = await fulfilledOrder('slow-gateway');
    // Committed at the gateway, then no answer: the adapter gives up after 10 s, past the delivery transaction's 5 s.
    await control.addFault({ fault: { kind: 'commit_then_timeout' }, operation: 'refund', cardToken: 'tok_slow-gateway' });
    const input = { orderId: order.id, amount: '5.00', reason: 'slow gateway', idempotencyKey: 'gql-refund-slow' };
    const { requestRefund } = await api.data<{ requestRefund: RefundRequest }>(REQUEST_REFUND, { input }, admin);
    const [event] = await refundRequestedEvents(requestRefund.id);
    if (event === undefined) throw new Error('requestRefund emitted no payments.refund_requested');

    await expect(api.prisma.$transaction((tx) => refundTrigger.handle(tx, event))).resolves.toBeUndefined();
    await inProcess.idle();
    expect(await api.prisma.refundRequest.findUniqueOrThrow({ where: { id: BigInt(requestRefund.id) } })).toMatchObject({
      status: 'REQUESTED',
    });
    expect(await refundsAt(order.authorizationId)).toEqual([['approved', 500]]);

    // The sweep on a clock moved on past the time a request is taken as stranded.
    const stranded = new Date(Date.now() + (STRANDED_AFTER_MINUTES + 1) * 60_000);
    const sweep = {
      transaction: api.outbox.transaction,
      deps: { ...deps, now: () => stranded },
      metrics: workflowMetrics(api.platform.metrics),
      pace: sweepPace(1_000),
    };
    const run = { workflow: 'ReconcileStrandedMoneyWorkflow', workflowId: 'embedded-reconcile-stranded-money', runId: 'graphql-refunds' };
    const reconcile = IN_PROCESS_SWEEPS.find((candidate) => candidate.workflowType === WORKFLOW_TYPES.reconcileStrandedMoney);
    if (reconcile === undefined) throw new Error('the api runs no in-process reconciliation');
    expect(await reconcile.pass(sweep, { asOf: new Date(), limit: 10, run })).toEqual({ processed: 0, more: false });
    expect(await reconcile.pass(sweep, { asOf: stranded, limit: 10, run })).toEqual({ processed: 1, more: false });
    // Moved on by the first: the same run passes it by.
    expect(await reconcile.pass(sweep, { asOf: stranded, limit: 10, run })).toEqual({ processed: 0, more: false });
    expect(await refundRequestedEvents(requestRefund.id)).toHaveLength(2);

    await runInProcess(requestRefund.id);
    const { order: seen } = await api.data<{ order: { refundRequests: RefundRequest[] } }>(ORDER_REFUNDS, { id: order.id }, admin);
    expect(seen.refundRequests).toMatchObject([
      { id: requestRefund.id, status: 'SUCCEEDED', refunds: [{ status: 'SUCCEEDED', attempt: 1 }] },
    ]);
    expect(await refundsAt(order.authorizationId)).toEqual([['approved', 500]]);
  }, 60_000);

  it('sends a declined refund to the customer store credit when staff ask', async () => {
    const order = await fulfilledOrder('graphql-declined');
    await control.addFault({ fault: { kind: 'decline' }, operation: 'refund', cardToken: 'tok_graphql-declined' });
    const { requestRefund } = await api.data<{ requestRefund: RefundRequest }>(
      REQUEST_REFUND,
      { input: { orderId: order.id, amount: '5.00', reason: 'late', idempotencyKey: 'gql-refund-3' } },
      admin,
    );
    await runInProcess(requestRefund.id);
    const { order: failed } = await api.data<{ order: { refundRequests: RefundRequest[] } }>(ORDER_REFUNDS, { id: order.id }, admin);
    expect(failed.refundRequests).toMatchObject([
      { status: 'NEEDS_ATTENTION', refunds: [{ status: 'FAILED', lastError: 'card_declined: the gateway declined the refund' }] },
    ]);

    const refundId = requestRefund.refunds[0]?.id;
    const { refundToStoreCredit } = await api.data<{ refundToStoreCredit: RefundRequest }>(
      `mutation ($refundId: ID!) { refundToStoreCredit(refundId: $refundId) { ${REQUEST_FIELDS} } }`,
      { refundId },
      admin,
    );
    expect(refundToStoreCredit.refunds.map((refund) => [refund.destination, refund.status])).toEqual([
      ['ORIGINAL', 'CANCELED'],
      ['STORE_CREDIT', 'REQUESTED'],
    ]);
    await runInProcess(requestRefund.id);
    expect(
      (await api.data<{ order: { refundRequests: RefundRequest[] } }>(ORDER_REFUNDS, { id: order.id }, admin)).order.refundRequests[0]
        ?.status,
    ).toBe('SUCCEEDED');
    expect(await api.data('query { myStoreCredit { currency balance } }', {}, customer)).toEqual({
      myStoreCredit: [{ currency: 'EUR', balance: '5.00' }],
    });
    expect(await refundsAt(order.authorizationId)).toEqual([['declined', 500]]);
    expect(await api.error('mutation ($refundId: ID!) { retryRefund(refundId: $refundId) { id } }', { refundId }, admin)).toMatchObject({
      extensions: { code: 'BAD_USER_INPUT', field: 'refundId' },
    });
  });

  it('shows the customer a refund request without the gateway error or who asked; staff see both', async () => {
    const order = await fulfilledOrder('graphql-customer-view');
    await control.addFault({ fault: { kind: 'decline' }, operation: 'refund', cardToken: 'tok_graphql-customer-view' });
    const input = { orderId: order.id, amount: '3.00', reason: 'scratched', idempotencyKey: 'gql-refund-customer-view' };
    const { requestRefund } = await api.data<{ requestRefund: RefundRequest }>(REQUEST_REFUND, { input }, admin);
    await runInProcess(requestRefund.id);
    const { staffMe } = await api.data<{ staffMe: { id: string } }>('query { staffMe { id } }', {}, admin);
    const fields = 'status staffUserId refunds { status lastError }';

    const { order: seenByStaff } = await api.data<{ order: { refundRequests: unknown[] } }>(
      `query ($id: ID!) { order(id: $id) { refundRequests { ${fields} } } }`,
      { id: order.id },
      admin,
    );
    expect(seenByStaff.refundRequests).toEqual([
      {
        status: 'NEEDS_ATTENTION',
        staffUserId: staffMe.id,
        refunds: [{ status: 'FAILED', lastError: 'card_declined: the gateway declined the refund' }],
      },
    ]);
    const mine = await api.data<{ myOrders: { nodes: { id: string; refundRequests: unknown[] }[] } }>(
      `query { myOrders { nodes { id refundRequests { ${fields} } } } }`,
      {},
      customer,
    );
    expect(mine.myOrders.nodes.find((node) => node.id === order.id)?.refundRequests).toEqual([
      { status: 'NEEDS_ATTENTION', staffUserId: null, refunds: [{ status: 'FAILED', lastError: null }] },
    ]);
  });

  it('is for staff with payments.refund', async () => {
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
    const input = { orderId: '1', amount: '1.00', reason: 'x', idempotencyKey: 'gql-refund-forbidden' };
    expect(await api.error(REQUEST_REFUND, { input }, bearer(loginStaff.accessToken))).toMatchObject({
      extensions: { code: 'FORBIDDEN', permission: 'payments.refund' },
    });
    expect(await api.error(REQUEST_REFUND, { input }, customer)).toMatchObject({ extensions: { code: 'FORBIDDEN' } });
  });
});
