import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { applyMigrations, ConfigError, loadConfig } from '@shop/platform';
import { createTestDatabase, type TestDatabase } from '../../../../test/infra/isolation.ts';
import { ClientAddress, plainAddress } from '../../src/http/client-address.ts';
import { startApi, type RunningApi } from '../support/start-api.ts';
import { newEntityId, newSession, storedEvents, track } from '../support/tracking.ts';

describe('plainAddress', () => {
  it.each([
    ['198.51.100.7', '198.51.100.7'],
    [' 198.51.100.7 ', '198.51.100.7'],
    ['198.51.100.7:8080', '198.51.100.7'],
    ['2001:db8::1', '2001:db8::1'],
    ['[2001:db8::1]:443', '2001:db8::1'],
    ['::ffff:198.51.100.7', '198.51.100.7'],
    ['unknown', undefined],
    ['', undefined],
    ['198.51.100.300', undefined],
  ])('%j is %j', (raw, expected) => {
    expect(plainAddress(raw)).toBe(expected);
  });
});

describe('ClientAddress without TRUSTED_PROXIES: every forwarder is believed', () => {
  const addresses = new ClientAddress(undefined);

  it('takes the first X-Forwarded-For address', () => {
    expect(addresses.of('203.0.113.5, 10.0.0.1, 10.0.0.2', '10.0.0.3')).toBe('203.0.113.5');
    expect(addresses.of(['203.0.113.5, 10.0.0.1', '10.0.0.2'], '10.0.0.3')).toBe('203.0.113.5');
  });

  it('takes the peer when there is no usable header', () => {
    expect(addresses.of(undefined, '::ffff:10.0.0.3')).toBe('10.0.0.3');
    expect(addresses.of('', '10.0.0.3')).toBe('10.0.0.3');
    expect(addresses.of('unknown', '10.0.0.3')).toBe('10.0.0.3');
  });

  it('never exceeds the column', () => {
    expect(addresses.of(undefined, '1111:2222:3333:4444:5555:6666:7777:8888').length).toBeLessThanOrEqual(45);
  });
});

describe('ClientAddress with TRUSTED_PROXIES: only trusted hops are believed', () => {
  const addresses = new ClientAddress(['10.0.0.0/8', '2001:db8:ffff::/48', '192.0.2.1']);

  it('walks back through trusted proxies to the first untrusted address', () => {
    expect(addresses.of('203.0.113.5, 10.1.2.3', '10.0.0.3')).toBe('203.0.113.5');
    expect(addresses.of('203.0.113.5', '192.0.2.1')).toBe('203.0.113.5');
    expect(addresses.of('203.0.113.5', '2001:db8:ffff::9')).toBe('203.0.113.5');
  });

  it('ignores what a client wrote itself in front of the proxy', () => {
    // The client claims 198.51.100.1; the trusted proxy appended the real peer 203.0.113.5.
    expect(addresses.of('198.51.100.1, 203.0.113.5', '10.0.0.3')).toBe('203.0.113.5');
  });

  it('ignores the header entirely from an untrusted peer', () => {
    expect(addresses.of('198.51.100.1', '203.0.113.99')).toBe('203.0.113.99');
  });

  it('stops at a hop that is no address', () => {
    expect(addresses.of('198.51.100.1, garbage', '10.0.0.3')).toBe('10.0.0.3');
  });

  it('takes the leftmost address when every hop is trusted', () => {
    expect(addresses.of('10.9.9.9, 10.1.1.1', '10.0.0.3')).toBe('10.9.9.9');
  });
});

describe('TRUSTED_PROXIES in the configuration', () => {
  it('is undefined when unset and a list of addresses and ranges when set', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).trustedProxies).toBeUndefined();
    expect(loadConfig({ NODE_ENV: 'test', TRUSTED_PROXIES: ' 10.0.0.0/8, 192.0.2.1 ,2001:db8::/32' }).trustedProxies).toEqual([
      '10.0.0.0/8',
      '192.0.2.1',
      '2001:db8::/32',
    ]);
  });

  it.each(['proxy.internal', '10.0.0.0/33', '2001:db8::/129', '10.0.0.1/8/2'])('refuses %j', (entry) => {
    expect(() => loadConfig({ NODE_ENV: 'test', TRUSTED_PROXIES: `10.0.0.1,${entry}` })).toThrow(ConfigError);
    expect(() => loadConfig({ NODE_ENV: 'test', TRUSTED_PROXIES: entry })).toThrow(
      `TRUSTED_PROXIES: must be IP addresses or CIDR ranges, comma-separated (bad entry "${entry}")`,
    );
  });
});

describe('POST /track records the client address by the configured rule', () => {
  let database: TestDatabase;
  let open: RunningApi;
  let trusting: RunningApi;

  beforeAll(async () => {
    database = await createTestDatabase('track_address');
    await applyMigrations(database.url);
    const env = { DATABASE_URL: database.url, CACHE_URL: inject('redisUrl') };
    open = await startApi(env);
    trusting = await startApi({ ...env, TRUSTED_PROXIES: '10.0.0.0/8' });
  });

  afterAll(async () => {
    await open?.close();
    await trusting?.close();
    await database?.drop();
  });

  const body = () => ({ event_type: 'impression', entity_type: 'banner', entity_id: newEntityId(), page_url: '/' });

  it('believes any forwarder by default', async () => {
    const session = newSession();
    await track(open.app, {
      session,
      body: body(),
      headers: { 'x-forwarded-for': '198.51.100.1, 203.0.113.5' },
      remoteAddress: '203.0.113.99',
    });
    expect((await storedEvents(open.platform.database.pool, session))[0]?.ip_address).toBe('198.51.100.1');
  });

  it('believes only the trusted proxies when TRUSTED_PROXIES is set', async () => {
    const [viaProxy, direct] = [newSession(), newSession()];
    const forged = { 'x-forwarded-for': '198.51.100.1, 203.0.113.5' };
    await track(trusting.app, { session: viaProxy, body: body(), headers: forged, remoteAddress: '10.0.0.7' });
    await track(trusting.app, { session: direct, body: body(), headers: forged, remoteAddress: '203.0.113.99' });
    expect((await storedEvents(trusting.platform.database.pool, viaProxy))[0]?.ip_address).toBe('203.0.113.5');
    expect((await storedEvents(trusting.platform.database.pool, direct))[0]?.ip_address).toBe('203.0.113.99');
  });
});
