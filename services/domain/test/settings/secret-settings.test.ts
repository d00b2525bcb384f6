import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readStoredSecret } from '@shop/platform';
import { openTestPlatform, type TestPlatform } from '../../../../test/support/test-platform.ts';
import { createStaffUser } from '../../src/auth/staff.ts';
import { secretStatus, storeSecret } from '../../src/settings/secret-settings.ts';
import { expectDomainError } from '../support/accounts.ts';

let test: TestPlatform;
let staffUserId: bigint;
const now = new Date('2026-11-25T11:00:00.000Z');
const PLAINTEXT = 'whsec_do-not-show-me-anywhere';

beforeAll(async () => {
  test = await openTestPlatform('secret_settings');
  const staff = await test.platform.database.prisma.$transaction((tx) =>
    createStaffUser(tx, { email: 'secrets@example.com', password: 'a long enough password', name: 'Keeper' }),
  );
  staffUserId = staff.id;
});
afterAll(async () => test?.close());

const prisma = () => test.platform.database.prisma;

describe('secret settings', () => {
  it('store the value encrypted under the current master key and answer only its status', async () => {
    const status = await prisma().$transaction((tx) =>
      storeSecret(tx, test.platform.masterKeys, { key: 'webhooks.signing_secret', value: PLAINTEXT, staffUserId, now }),
    );
    expect(status).toEqual({
      key: 'webhooks.signing_secret',
      setAt: now,
      setByStaffUserId: staffUserId,
      keyId: test.platform.masterKeys.current.id,
    });
    expect(JSON.stringify(status, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value))).not.toContain(
      PLAINTEXT,
    );
    expect(await prisma().$transaction((tx) => secretStatus(tx, 'webhooks.signing_secret'))).toEqual(status);
    expect(await readStoredSecret(prisma(), test.platform.masterKeys, 'webhooks.signing_secret')).toBe(PLAINTEXT);

    const { rows } = await test.platform.database.pool.query<{ events: string }>(
      "SELECT coalesce(string_agg(payload::text, ''), '') AS events FROM outbox_events",
    );
    expect(rows[0]?.events).not.toContain(PLAINTEXT);
  });

  it('answer null for a key never set', async () => {
    expect(await prisma().$transaction((tx) => secretStatus(tx, 'payments.never_set'))).toBeNull();
  });

  it('refuse a key that is not area.name, naming the field', async () => {
    for (const key of ['Payments.Key', 'nodot', 'a.b-c', `a.${'x'.repeat(200)}`]) {
      const error = await expectDomainError(
        prisma().$transaction((tx) => storeSecret(tx, test.platform.masterKeys, { key, value: PLAINTEXT, staffUserId, now })),
        'BAD_USER_INPUT',
      );
      expect(error.details).toEqual({ field: 'key' });
      expect(error.message).not.toContain(PLAINTEXT);
    }
  });

  it('refuse an empty or oversized value without quoting it', async () => {
    const store = (value: string) =>
      prisma().$transaction((tx) => storeSecret(tx, test.platform.masterKeys, { key: 'payments.api_key', value, staffUserId, now }));
    expect((await expectDomainError(store(''), 'BAD_USER_INPUT', 'value must not be empty')).details).toEqual({ field: 'value' });
    const huge = `${PLAINTEXT}${'x'.repeat(16 * 1024)}`;
    const error = await expectDomainError(store(huge), 'BAD_USER_INPUT', 'value must be at most 16384 bytes');
    expect(JSON.stringify(error.details)).not.toContain(PLAINTEXT);
  });
});
