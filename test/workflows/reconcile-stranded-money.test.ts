// ReconcileStrandedMoneyWorkflow on a Temporal server of this file's own, which it stops for longer
// than the outbox's retries: the captures of a fulfilled order and of one fulfilled and completed, and a
// refund request, whose events parked meanwhile are captured and refunded once the server is back and the sweep has run, once each at the gateway.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCartLine, createCart } from '@shop/domain/carts';
import { checkout, STRANDED_AFTER_MINUTES } from '@shop/domain/flows';
import { type DomainDeps } from '@shop/domain/kernel';
import { completeOrder, fulfilOrder } from '@shop/domain/orders';
import { requestRefund } from '@shop/domain/refunds';
import { tenderKeys } from '@shop/domain/tenders';
import { TASK_QUEUE, WORKFLOW_TYPES, workflowIds } from '@shop/domain/workflows';
import { ADDRESS } from '../../services/domain/test/support/commerce.ts';
import { startTemporal, type TemporalHandle } from '../infra/temporal.ts';
import { waitFor } from '../support/wait.ts';
import { openShopGateway, openWorkflowShop, type RunningWorker, type ShopGateway, type WorkflowShop } from '../support/workflows.ts';

const GATEWAY_KEY = 'stranded_gateway_key';
/** Two failed runs park a delivery (the dispatcher's default is 8, minutes of backoff). */
const MAX_ATTEMPTS = 2;

let temporal: TemporalHandle;
let shop: WorkflowShop;
let gateway: ShopGateway;
let paying: DomainDeps;
let worker: RunningWorker;

const startWorker = () => shop.startWorker({ PAYMENT_GATEWAY_URL: gateway.url });

beforeAll(async () => {
  temporal = await startTemporal();
  shop = await openWorkflowShop('stranded', { temporalAddress: temporal.url, maxAttempts: MAX_ATTEMPTS });
  gateway = await openShopGateway(shop, GATEWAY_KEY);
  paying = { ...shop.deps, gateway: gateway.cards };
  worker = await startWorker();
}, 180_000);

afterAll(async () => {
  await shop?.close();
  await gateway?.close();
  await temporal?.dispose();
});

const prisma = () => shop.commerce.platform.database.prisma;
const cardOf = (orderId: bigint) => prisma().paymentTender.findFirstOrThrow({ where: { orderId, kind: 'CARD' } });
const requestStatus = async (id: string) => (await prisma().refundRequest.findUniqueOrThrow({ where: { id: BigInt(id) } })).status;
const parked = (listener: string) => prisma().outboxDelivery.count({ where: { listener, status: 'parked' } });

/** An order of 2 × 10.00 paid at checkout by a card (token `tok_<sku>`): PLACED, its card AUTHORIZED. */
async function cardOrder(sku: string): Promise<bigint> {
  const productId = await shop.catalog.product(sku, '10.00', 5);
  const shopper = { sessionId: `s-stranded-${sku}` };
  const cartId = await shop.transaction(async (tx) => {
    const cart = await createCart(tx, paying, { channelId: shop.catalog.channelId, shopper });
    await addCartLine(tx, paying, { cartId: cart.id, shopper, productId, quantity: 2 });
    return cart.id;
  });
  const input = {
    cartId,
    shopper,
    email: `${sku}@example.com`,
    billingAddress: ADDRESS,
    shippingAddress: ADDRESS,
    idempotencyKey: `stranded-${sku}`,
    card: { token: `tok_${sku}` },
  };
  return (await checkout(shop.commerce.transaction, paying, input)).id;
}

const gatewayOperations = async (kind: string, authorizationId: string) =>
  (await gateway.control.operations())
    .filter((operation) => operation.kind === kind && operation.authorizationId === authorizationId)
    .map((operation) => operation.idempotencyKey);

/** The sweep, run now rather than on its schedule, on a clock past the time its rows are taken as stranded. */
const reconcile = (workflowId: string) =>
  shop.client.workflow.execute(WORKFLOW_TYPES.reconcileStrandedMoney, {
    taskQueue: TASK_QUEUE,
    workflowId,
    args: [new Date(Date.now() + (STRANDED_AFTER_MINUTES + 1) * 60_000).toISOString()],
  });

describe('ReconcileStrandedMoneyWorkflow', () => {
  it('captures and refunds what parked while Temporal was down, once it is back', async () => {
    const toCapture = await cardOrder('capture');
    await shop.started(workflowIds.orderLifecycle(toCapture.toString()));
    const toComplete = await cardOrder('complete');
    await shop.started(workflowIds.orderLifecycle(toComplete.toString()));
    const toRefund = await cardOrder('refund');
    await shop.transaction((tx) => fulfilOrder(tx, shop.deps, toRefund));
    await waitFor(async () => (await cardOf(toRefund)).status === 'CAPTURED', 60_000, 'the capture of the order to refund');

    expect(await worker.stop()).toBe(0);
    await temporal.stop();
    await shop.transaction((tx) => fulfilOrder(tx, shop.deps, toCapture));
    await shop.transaction((tx) => fulfilOrder(tx, shop.deps, toComplete));
    await shop.transaction((tx) => completeOrder(tx, shop.deps, toComplete));
    const staff = await prisma().staffUser.create({
      data: { email: 'stranded@example.com', passwordHash: 'scrypt$unused', name: 'Refunder' },
    });
    const source = { kind: 'STAFF', staffUserId: staff.id } as const;
    const request = await shop.transaction((tx) =>
      requestRefund(tx, shop.deps, { orderId: toRefund, amount: '5.00', reason: 'returned', idempotencyKey: 'stranded-refund', source }),
    );
    await waitFor(
      async () => (await parked('order_lifecycle_workflow')) === 3 && (await parked('refund_execution_workflow')) === 1,
      60_000,
      'both deliveries to park',
    );

    await temporal.start();
    worker = await startWorker();
    expect(await requestStatus(request.id)).toBe('REQUESTED');
    expect((await cardOf(toCapture)).status).toBe('AUTHORIZED');
    expect((await cardOf(toComplete)).status).toBe('AUTHORIZED');

    await expect(reconcile('reconcile-stranded')).resolves.toEqual({ passes: 1, processed: 3 });
    await waitFor(async () => (await requestStatus(request.id)) === 'SUCCEEDED', 60_000, 'the stranded refund');
    await waitFor(async () => (await cardOf(toCapture)).status === 'CAPTURED', 60_000, 'the stranded capture');
    await waitFor(async () => (await cardOf(toComplete)).status === 'CAPTURED', 60_000, 'the stranded capture of the completed order');
    for (const orderId of [toCapture, toComplete]) {
      const captured = await cardOf(orderId);
      expect(captured.capturedAmount.toFixed(2)).toBe('20.00');
      expect(await gatewayOperations('capture', captured.gatewayReference)).toEqual([tenderKeys.capture(captured.id)]);
    }
    expect(await gatewayOperations('refund', (await cardOf(toRefund)).gatewayReference)).toHaveLength(1);
    await shop.saveHistory('reconcile-stranded', WORKFLOW_TYPES.reconcileStrandedMoney, 'restarted');

    // Nothing is left stranded: a second run restarts nothing.
    await expect(reconcile('reconcile-again')).resolves.toEqual({ passes: 1, processed: 0 });
  }, 240_000);
});
