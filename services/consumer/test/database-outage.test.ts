import { afterAll, beforeAll, expect, it, inject } from 'vitest';
import { applyMigrations } from '@shop/platform';
import { startPostgres, type ServerHandle } from '../../../test/infra/servers.ts';
import { uniqueName } from '../../../test/infra/isolation.ts';
import { startConsumerService } from '../src/consumer-service.ts';
import { countingGroup } from './support/groups.ts';
import { createTopic, produceEvents, testEvent } from './support/kafka.ts';
import { metricValue, openTestPlatform, type TestPlatform } from './support/platform.ts';
import { waitFor } from '../../../test/support/wait.ts';

const brokers = inject('kafkaBrokers');
let postgres: ServerHandle;
let test: TestPlatform;

beforeAll(async () => {
  postgres = await startPostgres();
  await applyMigrations(postgres.url);
  test = await openTestPlatform(postgres.url, brokers);
});

afterAll(async () => {
  await test?.platform.close();
  await postgres?.dispose();
});

it('keeps a message waiting while the database is down instead of spending its attempts and dead-lettering it', async () => {
  const [topic, groupId] = [uniqueName('outage'), uniqueName('group')];
  await createTopic(brokers, topic, 1);
  const fatal: Error[] = [];
  const service = await startConsumerService(test.platform, [countingGroup(groupId, topic)], {
    retry: { attempts: 2, initialDelayMs: 10, maxDelayMs: 200 },
    onFatal: (error) => fatal.push(error),
  });
  const metric = (name: string, labels: Record<string, string> = {}) =>
    metricValue(test.platform.metrics, name, { group: groupId, ...labels });
  try {
    await postgres.stop();
    await produceEvents(brokers, topic, [testEvent('order-1')]);
    await waitFor(
      () => test.logs().some((line) => line.msg === 'the database failed the message; it waits and tries again'),
      30_000,
      'the wait',
    );
    // why: proves that the outage spends no attempts, and nothing counts the waits: long enough for many more
    // than 2 attempts at this backoff, had the outage spent them.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await postgres.start();

    await waitFor(async () => (await metric('consumer_messages_handled_total', { result: 'done' })) === 1, 30_000, 'the message handled');
    expect(await metric('consumer_messages_handled_total', { result: 'dead_lettered' })).toBe(0);
    expect(await metric('consumer_handler_failures_total')).toBe(0);
    // The lock session died with the server: a real process stops here (exit 1) and is restarted.
    expect(fatal.map((error) => error.message)).toEqual([expect.stringMatching(/^lost the connection holding the consumer group locks/)]);
  } finally {
    await service.stop();
  }
});
