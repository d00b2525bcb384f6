import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it, inject } from 'vitest';
import { createLogger } from '@shop/runtime';
import { createTestDatabase, type TestDatabase } from '../../../../test/infra/isolation.ts';
import { applyMigrations } from '../../src/db/migrations/index.ts';
import { loadConfig } from '../../src/config/config.ts';
import { openPlatform, type Platform } from '../../src/platform.ts';
import { createEmitter } from '../../src/outbox/emit.ts';
import { outboxMetrics, registerParkedDeliveriesGauge } from '../../src/outbox/outbox-metrics.ts';
import { OutboxDispatcher } from '../../src/outbox/dispatcher.ts';
import { pruneOutbox } from '../../src/outbox/prune.ts';
import type { EventListener } from '../../src/outbox/listeners.ts';
import { examplePayload } from '../support/outbox.ts';

const CLI = fileURLToPath(new URL('../../src/outbox/replay-cli.ts', import.meta.url));
const MAX_ATTEMPTS = 3;

const logger = createLogger({ level: 'ERROR', service: 'test' });
let database: TestDatabase;
let platform: Platform;

beforeAll(async () => {
  database = await createTestDatabase('outbox_parked');
  await applyMigrations(database.url);
  platform = await openPlatform(
    loadConfig({ NODE_ENV: 'test', DATABASE_URL: database.url, CACHE_URL: inject('redisUrl') }),
    logger,
    'test',
  );
});

afterAll(async () => {
  await platform?.close();
  await database?.drop();
});

beforeEach(async () => {
  await platform.database.pool.query('TRUNCATE outbox_events CASCADE');
  await platform.database.pool.query('DELETE FROM settings');
});

/** Runs the command as `npm run outbox:replay` does; resolves with its exit code and output, never rejects. */
async function replayCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { PATH: process.env.PATH ?? '', NODE_ENV: 'test', DATABASE_URL: database.url };
  return promisify(execFile)(process.execPath, [CLI, ...args], { env }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

/** A listener recording its effect in `settings`, which fails while `broken.failing` is true. */
function flakyListener(name: string) {
  const state = { failing: true, runs: 0 };
  const listener: EventListener<'cart.item_added'> = {
    name,
    event: 'cart.item_added',
    async handle(tx, payload) {
      state.runs += 1;
      if (state.failing) throw new Error(`${name}: downstream unavailable`);
      await tx.setting.create({ data: { key: `${name}:${payload.event_id}`, value: payload.cart_line_id } });
    },
  };
  return { listener, state };
}

const recording = (name: string) => {
  const flaky = flakyListener(name);
  flaky.state.failing = false;
  return flaky;
};

async function emitCartEvents(count: number): Promise<string[]> {
  const eventIds = Array.from({ length: count }, () => randomUUID());
  const emitter = createEmitter({ mode: 'strict', logger, metrics: outboxMetrics(platform.metrics, platform.database.pool) });
  await platform.database.prisma.$transaction(async (tx) => {
    for (const eventId of eventIds) await emitter.emit(tx, 'cart.item_added', examplePayload('cart.item_added', { event_id: eventId }));
  });
  return eventIds;
}

function dispatcherOf(listeners: readonly EventListener[]) {
  return new OutboxDispatcher({
    pool: platform.database.pool,
    prisma: platform.database.prisma,
    listeners,
    metrics: outboxMetrics(platform.metrics, platform.database.pool),
    logger,
    maxAttempts: MAX_ATTEMPTS,
  });
}

/** Dispatch passes with every backoff cut short, until nothing is due. */
async function dispatchUntilSettled(dispatcher: OutboxDispatcher): Promise<void> {
  while ((await dispatcher.dispatchOnce()) > 0)
    await platform.database.pool.query('UPDATE outbox_events SET next_attempt_at = now() WHERE dispatched_at IS NULL');
}

const effects = async (listener: string) =>
  (
    await platform.database.pool.query<{ key: string }>('SELECT key FROM settings WHERE key LIKE $1 ORDER BY key', [`${listener}:%`])
  ).rows.map((row) => row.key);

async function parkedGauge(registry: Registry): Promise<Record<string, number>> {
  const metric = await registry.getSingleMetric('outbox_parked_deliveries')?.get();
  return Object.fromEntries((metric?.values ?? []).map((value) => [value.labels.listener, value.value]));
}

const ageEverything = () => platform.database.pool.query(`UPDATE outbox_events SET created_at = now() - interval '400 hours'`);

describe('a parked delivery', () => {
  it('is kept by pruning and counted, and once replayed after the fix, runs exactly once', async () => {
    const broken = flakyListener('broken');
    const healthy = recording('healthy');
    const dispatcher = dispatcherOf([broken.listener, healthy.listener]);
    const registry = new Registry();
    registerParkedDeliveriesGauge(registry, platform.database.pool, ['broken', 'healthy']);
    expect(await parkedGauge(registry)).toEqual({ broken: 0, healthy: 0 });

    const [eventId] = await emitCartEvents(1);
    await dispatchUntilSettled(dispatcher);
    expect(broken.state.runs).toBe(MAX_ATTEMPTS);
    expect(await parkedGauge(registry)).toEqual({ broken: 1, healthy: 0 });

    await ageEverything();
    expect(await pruneOutbox(platform.database.pool, 168)).toBe(0);

    const listed = await replayCli(['list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(
          `^broken  cart\\.item_added  outbox id \\d+  event id ${eventId}  3 attempts  16d 16h old  last error: broken: downstream unavailable$`,
        ),
      ),
      '1 parked deliveries',
    ]);

    broken.state.failing = false;
    const replayed = await replayCli(['--listener=broken']);
    expect(replayed.code).toBe(0);
    expect(replayed.stdout.trim().split('\n')).toEqual([
      '1 deliveries replayed, 0 left',
      '1 parked deliveries replayed: the outbox dispatcher runs them again; `list` shows any parked again',
    ]);
    await dispatchUntilSettled(dispatcher);
    await dispatchUntilSettled(dispatcher);

    expect(broken.state.runs).toBe(MAX_ATTEMPTS + 1);
    expect(healthy.state.runs).toBe(1);
    expect(await effects('broken')).toEqual([`broken:${eventId}`]);
    expect(await effects('healthy')).toEqual([`healthy:${eventId}`]);
    expect(await parkedGauge(registry)).toEqual({ broken: 0, healthy: 0 });
    expect((await replayCli(['list'])).stdout.trim()).toBe('0 parked deliveries');
    expect(await pruneOutbox(platform.database.pool, 168)).toBe(1);
  });

  it('can be replayed alone, by its event id or its outbox id, in batches that report their progress', async () => {
    const broken = flakyListener('broken');
    const dispatcher = dispatcherOf([broken.listener]);
    const eventIds = await emitCartEvents(4);
    await dispatchUntilSettled(dispatcher);
    broken.state.failing = false;
    const outboxIdOf = async (eventId: string) =>
      (await platform.database.pool.query<{ id: string }>('SELECT id::text FROM outbox_events WHERE event_id = $1', [eventId])).rows[0]
        ?.id ?? '';

    const byEventId = await replayCli([`--event=${eventIds[0]}`]);
    expect(byEventId.stdout).toMatch(/^1 deliveries replayed, 0 left$/m);
    const byOutboxId = await replayCli([`--event=${await outboxIdOf(eventIds[1] ?? '')}`]);
    expect(byOutboxId.stdout).toMatch(/^1 deliveries replayed, 0 left$/m);
    await dispatchUntilSettled(dispatcher);
    expect(await effects('broken')).toEqual(
      eventIds
        .slice(0, 2)
        .map((id) => `broken:${id}`)
        .sort(),
    );
    expect((await replayCli(['list', '--listener=broken'])).stdout).toMatch(/^2 parked deliveries$/m);

    const rest = await replayCli(['--all', '--batch-size=1']);
    expect(rest.stdout.trim().split('\n')).toEqual([
      '1 deliveries replayed, 1 left',
      '2 deliveries replayed, 0 left',
      '2 parked deliveries replayed: the outbox dispatcher runs them again; `list` shows any parked again',
    ]);
    await dispatchUntilSettled(dispatcher);
    expect(await effects('broken')).toEqual(eventIds.map((id) => `broken:${id}`).sort());
  });
});

describe('outbox:replay usage', () => {
  it.each([
    ['no selector', []],
    ['two selectors', ['--all', '--listener=audit']],
    ['an event that is neither an outbox id nor a UUID', ['--event=latest']],
    ['an unknown command', ['retry', '--all']],
    ['an unknown option', ['--everything']],
    ['a batch size of zero', ['--all', '--batch-size=0']],
  ])('stops with its usage and exit code 64 on %s', async (_case, args) => {
    const { code, stdout, stderr } = await replayCli(args);
    expect(code).toBe(64);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^usage: replay-cli\.ts list /);
  });

  it('stops with one line naming DATABASE_URL when it is not a PostgreSQL URL', async () => {
    const result = await promisify(execFile)(process.execPath, [CLI, 'list'], {
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', DATABASE_URL: 'mysql://x/shop' },
    }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(result.code).toBe(78);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringContaining('DATABASE_URL')]);
  });
});
