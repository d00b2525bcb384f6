import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { postgresSearchEngine, type TopicName } from '@shop/platform';
import { ADMIN_INDEX, searchSubscription } from '@shop/domain/search';
import { uniqueName } from '../../../test/infra/isolation.ts';
import { registerCustomer } from '@shop/domain/accounts';
import { addCartLine, createCart } from '@shop/domain/carts';
import { placeOrder } from '@shop/domain/flows';
import { ADDRESS, openCommerce, seedCatalog, type Commerce } from '../../domain/test/support/commerce.ts';
import { startConsumerService, type ConsumerService } from '../src/consumer-service.ts';
import { consumerGroupOf } from '../src/groups.ts';
import { produceEvents } from './support/kafka.ts';
import { openTestPlatform, type TestPlatform } from './support/platform.ts';

const brokers = inject('kafkaBrokers');

let commerce: Commerce;
let consumer: TestPlatform;
let service: ConsumerService | undefined;

beforeAll(async () => {
  commerce = await openCommerce('search_group');
  consumer = await openTestPlatform(commerce.platform.database.url, brokers);
});
afterAll(async () => {
  await service?.stop();
  await consumer?.platform.close();
  await commerce?.close();
});

it('indexes the customer and the order whose events the shop.search group reads from Kafka', async () => {
  const search = searchSubscription(consumer.platform.config);
  const catalog = await seedCatalog(commerce, 'sg');
  const cup = await catalog.product('enamel-cup', '8.50', 3);
  const before = await commerce.lastEventId();
  const { customer, order } = await commerce.transaction(async (tx) => {
    const customer = await registerCustomer(tx, commerce.deps, {
      channelId: catalog.channelId,
      email: 'kafka@example.com',
      password: 'correct horse battery',
      lastName: 'Lamarr',
    });
    const shopper = { customerId: customer.id };
    const cart = await createCart(tx, commerce.deps, { channelId: catalog.channelId, shopper });
    await addCartLine(tx, commerce.deps, { cartId: cart.id, shopper, productId: cup, quantity: 1 });
    const order = await placeOrder(tx, commerce.deps, {
      cartId: cart.id,
      shopper,
      email: customer.email,
      billingAddress: ADDRESS,
      shippingAddress: ADDRESS,
    });
    return { customer, order };
  });
  // As the relay publishes them: key = the partition key, value = the payload, the event id in a header.
  const subscribed = new Set<string>(search.topics);
  for (const event of (await commerce.events(before)).filter((event) => subscribed.has(event.name))) {
    const key = event.name === 'shop.accounts.created.v1' ? customer.id : order.id;
    await produceEvents(brokers, event.name as TopicName, [
      { eventId: event.payload.event_id as string, key: `${key}`, payload: event.payload },
    ]);
  }

  // Its own group id: the shared broker's topics hold other test files' events, which find no row here and change nothing.
  service = await startConsumerService(consumer.platform, [consumerGroupOf({ ...search, name: uniqueName('shop_search') })]);

  const engine = postgresSearchEngine(commerce.platform.database.prisma);
  const found = async (text: string) => (await engine.search(ADMIN_INDEX, { text, limit: 10, offset: 0 })).hits.map((hit) => hit.id).sort();
  // The order's document names its customer too.
  await expect.poll(() => found('lamarr'), { timeout: 30_000 }).toEqual([`customer:${customer.id}`, `order:${order.id}`]);
  expect(await found(order.number)).toEqual([`order:${order.id}`]);
});
