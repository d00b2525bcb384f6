import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startOutbox, type Platform, type RunningOutbox } from '@shop/platform';
import { openTestPlatform, type TestPlatform } from '../../../../test/support/test-platform.ts';
import { examplePayload } from '../../../platform/test/support/outbox.ts';
import { subscriptionListeners } from '../../src/events/topic-subscription.ts';
import { topicSubscriptions } from '../../src/subscriptions/index.ts';

let test: TestPlatform;
let platform: Platform;
let outbox: RunningOutbox;

beforeAll(async () => {
  test = await openTestPlatform('audit');
  platform = test.platform;
  // No BROKER_ADDRESS: the embedded mode, where the api's dispatcher runs the topic subscriptions.
  outbox = startOutbox(platform, { listeners: subscriptionListeners(topicSubscriptions(platform.config)), idleMs: 20 });
});

afterAll(async () => {
  await outbox?.stop();
  await test?.close();
});

async function trail(eventIds: string[]): Promise<{ event_id: string; topic: string; entity_id: string }[]> {
  return (
    await platform.database.pool.query(
      'SELECT event_id, topic, entity_id FROM audit_entries WHERE event_id = ANY($1::uuid[]) ORDER BY id',
      [eventIds],
    )
  ).rows;
}

it('records account and lead creations in the audit trail in embedded mode, once per event', async () => {
  const [lead, account] = [randomUUID(), randomUUID()];
  await outbox.transaction(async (tx) => {
    await outbox.emit(tx, 'shop.leads.created.v1', examplePayload('shop.leads.created.v1', { event_id: lead, lead_id: '7' }));
    await outbox.emit(tx, 'shop.accounts.created.v1', examplePayload('shop.accounts.created.v1', { event_id: account, customer_id: '42' }));
  });
  await expect
    .poll(() => trail([lead, account]), { timeout: 10_000 })
    .toEqual([
      { event_id: lead, topic: 'shop.leads.created.v1', entity_id: '7' },
      { event_id: account, topic: 'shop.accounts.created.v1', entity_id: '42' },
    ]);

  // A second delivery of the same events (as after a lost acknowledgement) leaves the trail as it was.
  // First every listener finishes (the trail is written before later subscriptions' listeners run).
  const undispatched = async () =>
    (await platform.database.pool.query('SELECT count(*)::int AS n FROM outbox_events WHERE dispatched_at IS NULL')).rows[0].n as number;
  await expect.poll(undispatched, { timeout: 10_000 }).toBe(0);
  await platform.database.pool.query('DELETE FROM outbox_deliveries');
  await platform.database.pool.query('UPDATE outbox_events SET dispatched_at = NULL, published_at = NULL, next_attempt_at = now()');
  const redelivered = async () =>
    (await platform.database.pool.query("SELECT count(*)::int AS n FROM outbox_deliveries WHERE listener = 'shop.audit'")).rows[0]
      .n as number;
  await expect.poll(redelivered, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
  expect(await redelivered()).toBe(2);
  expect(await trail([lead, account])).toHaveLength(2);
});
