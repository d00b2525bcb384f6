import { randomBytes, scryptSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateEvent } from '@shop/platform';
import {
  approveBusinessCustomer,
  authenticateCustomer,
  registerCustomer,
  rejectBusinessCustomer,
  type RegisterCustomerInput,
} from '../../src/accounts/customers.ts';
import { captureLead } from '../../src/accounts/leads.ts';
import { createChannel, expectDomainError, openAccountsTest, type AccountsTest } from '../support/accounts.ts';

let t: AccountsTest;
let channelId: bigint;
let otherChannelId: bigint;
const PASSWORD = 'correct horse battery';

beforeAll(async () => {
  t = await openAccountsTest('accounts_customers');
  channelId = await createChannel(t.prisma);
  otherChannelId = await createChannel(t.prisma);
});

afterAll(async () => {
  await t?.close();
});

const register = (input: Partial<RegisterCustomerInput> & { email: string }) =>
  t.outbox.transaction((tx) => registerCustomer(tx, t.deps, { channelId, password: PASSWORD, ...input }));

async function eventsAbout(
  name: string,
  field: string,
  id: bigint,
): Promise<{ partition_key: string; payload: Record<string, unknown> }[]> {
  const { rows } = await t.platform.database.pool.query(
    'SELECT partition_key, payload FROM outbox_events WHERE name = $1 AND payload->>$2 = $3 ORDER BY id',
    [name, field, id.toString()],
  );
  return rows;
}

describe('registration', () => {
  it('creates the account with a normalized email, never returns the hash, and emits a schema-valid shop.accounts.created.v1', async () => {
    const customer = await register({ email: '  Ada@Example.com ', firstName: ' Ada ', lastName: '' });
    expect(customer).toMatchObject({
      channelId,
      email: 'ada@example.com',
      firstName: 'Ada',
      lastName: null,
      isBusiness: false,
      approvalStatus: null,
    });
    expect(customer).not.toHaveProperty('passwordHash');

    const stored = await t.prisma.customer.findUniqueOrThrow({ where: { id: customer.id } });
    expect(stored.passwordHash).toMatch(/^scrypt\$131072\$8\$1\$/);

    const events = await eventsAbout('shop.accounts.created.v1', 'customer_id', customer.id);
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(validateEvent('shop.accounts.created.v1', event?.payload ?? {})).toEqual([]);
    expect(event?.partition_key).toBe(customer.id.toString());
    expect(event?.payload).toMatchObject({
      customer_id: customer.id.toString(),
      channel_id: channelId.toString(),
      email: 'ada@example.com',
      customer_group_id: null,
      is_business: false,
      approval_status: null,
    });
  });

  it('starts a business account PENDING and says so in the event', async () => {
    const customer = await register({ email: 'buyer@acme.example', isBusiness: true });
    expect(customer.approvalStatus).toBe('PENDING');
    const [event] = await eventsAbout('shop.accounts.created.v1', 'customer_id', customer.id);
    expect(event?.payload).toMatchObject({ is_business: true, approval_status: 'PENDING' });
    const approvals = await eventsAbout('customer.approval_changed', 'customer_id', customer.id);
    expect(approvals.map((approval) => approval.payload)).toMatchObject([{ approval_status: 'PENDING', channel_id: channelId.toString() }]);
  });

  it('refuses a second account with the same email in the channel, whatever its case, and emits nothing for it', async () => {
    await register({ email: 'grace@example.com' });
    const before = await t.prisma.outboxEvent.count();
    await expectDomainError(register({ email: 'GRACE@example.com' }), 'CONFLICT', 'an account with this email already exists');
    expect(await t.prisma.outboxEvent.count()).toBe(before);
    expect(await t.prisma.customer.count({ where: { email: 'grace@example.com' } })).toBe(1);
  });

  it('turns the loser of two concurrent registrations into CONFLICT too', async () => {
    const outcomes = await Promise.allSettled([register({ email: 'race@example.com' }), register({ email: 'race@example.com' })]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    const lost = outcomes.find((outcome) => outcome.status === 'rejected');
    await expectDomainError(Promise.reject(lost?.reason), 'CONFLICT', 'an account with this email already exists');
  });

  it('allows the same email in another channel', async () => {
    await register({ email: 'linus@example.com' });
    const elsewhere = await register({ email: 'linus@example.com', channelId: otherChannelId });
    expect(elsewhere.channelId).toBe(otherChannelId);
  });

  it('refuses an unknown channel, a bad email, a weak password and overlong names', async () => {
    await expectDomainError(register({ email: 'x@example.com', channelId: 999_999n }), 'NOT_FOUND', 'channel 999999 does not exist');
    await expectDomainError(register({ email: 'not-an-email' }), 'BAD_USER_INPUT', 'email is not a valid address');
    await expectDomainError(
      register({ email: 'x@example.com', password: 'short' }),
      'BAD_USER_INPUT',
      'password must be at least 10 characters',
    );
    await expectDomainError(
      register({ email: 'x@example.com', firstName: 'a'.repeat(101) }),
      'BAD_USER_INPUT',
      'firstName must be at most 100 characters',
    );
    expect(await t.prisma.customer.count({ where: { email: 'x@example.com' } })).toBe(0);
  });
});

describe('customer sign-in', () => {
  const signIn = (email: string, password: string, channel = channelId) =>
    t.prisma.$transaction((tx) => authenticateCustomer(tx, channel, email, password));

  beforeAll(async () => {
    await register({ email: 'margaret@example.com' });
  });

  it('returns the account for the right email (any case) and password, without the hash', async () => {
    const customer = await signIn(' Margaret@Example.com', PASSWORD);
    expect(customer.email).toBe('margaret@example.com');
    expect(customer).not.toHaveProperty('passwordHash');
  });

  it('upgrades a hash made at a lower cost at the next sign-in, and keeps the password working', async () => {
    await register({ email: 'old-hash@example.com' });
    const where = { channelId_email: { channelId, email: 'old-hash@example.com' } };
    const salt = randomBytes(16);
    const oldKey = scryptSync(PASSWORD, salt, 32, { N: 16_384, r: 8, p: 1 });
    await t.prisma.customer.update({
      where,
      data: { passwordHash: ['scrypt', 16_384, 8, 1, salt.toString('base64'), oldKey.toString('base64')].join('$') },
    });

    await signIn('old-hash@example.com', PASSWORD);
    const upgraded = (await t.prisma.customer.findUniqueOrThrow({ where })).passwordHash;
    expect(upgraded).toMatch(/^scrypt\$131072\$8\$1\$/);
    await signIn('old-hash@example.com', PASSWORD);
    expect((await t.prisma.customer.findUniqueOrThrow({ where })).passwordHash).toBe(upgraded);
  });

  it('answers a wrong password, an unknown email and another channel with the same UNAUTHENTICATED message', async () => {
    const wrongPassword = await expectDomainError(signIn('margaret@example.com', 'wrong horse battery'), 'UNAUTHENTICATED');
    const unknownEmail = await expectDomainError(signIn('nobody@example.com', PASSWORD), 'UNAUTHENTICATED');
    const otherChannel = await expectDomainError(signIn('margaret@example.com', PASSWORD, otherChannelId), 'UNAUTHENTICATED');
    expect(wrongPassword.message).toBe('invalid email or password');
    expect(unknownEmail.message).toBe(wrongPassword.message);
    expect(otherChannel.message).toBe(wrongPassword.message);
  });
});

describe('business approval', () => {
  const decide = (decision: typeof approveBusinessCustomer, id: bigint) => t.prisma.$transaction((tx) => decision(tx, t.deps, id));

  it('approves and rejects business accounts, and a decision may be revised', async () => {
    const business = await register({ email: 'orders@widgets.example', isBusiness: true });
    expect((await decide(approveBusinessCustomer, business.id)).approvalStatus).toBe('APPROVED');
    expect((await decide(approveBusinessCustomer, business.id)).approvalStatus).toBe('APPROVED');
    const rejected = await decide(rejectBusinessCustomer, business.id);
    expect(rejected.approvalStatus).toBe('REJECTED');
    expect(rejected).not.toHaveProperty('passwordHash');
    // Each change is one event for the approval workflow; deciding what was decided emits nothing.
    const approvals = await eventsAbout('customer.approval_changed', 'customer_id', business.id);
    expect(approvals.map((approval) => approval.payload.approval_status)).toEqual(['PENDING', 'APPROVED', 'REJECTED']);
  });

  it('refuses a consumer account and an unknown customer', async () => {
    const consumer = await register({ email: 'alan@example.com' });
    await expectDomainError(decide(approveBusinessCustomer, consumer.id), 'BAD_USER_INPUT', /is not a business account/);
    await expectDomainError(decide(rejectBusinessCustomer, 999_999n), 'NOT_FOUND', 'customer 999999 does not exist');
  });
});

describe('leads', () => {
  const capture = (input: { email: string; name?: string | null; source: string; channelId?: bigint }) =>
    t.outbox.transaction((tx) => captureLead(tx, t.deps, { channelId, ...input }));

  it('records the lead and emits a schema-valid shop.leads.created.v1', async () => {
    const lead = await capture({ email: ' Buyer@Example.org', name: ' Grace Hopper ', source: 'newsletter' });
    expect(lead).toMatchObject({ email: 'buyer@example.org', name: 'Grace Hopper', source: 'newsletter', channelId });
    const events = await eventsAbout('shop.leads.created.v1', 'lead_id', lead.id);
    expect(events).toHaveLength(1);
    expect(validateEvent('shop.leads.created.v1', events[0]?.payload ?? {})).toEqual([]);
    expect(events[0]?.payload).toMatchObject({
      lead_id: lead.id.toString(),
      channel_id: channelId.toString(),
      name: 'Grace Hopper',
      source: 'newsletter',
    });
  });

  it('keeps a missing name as null and refuses a bad source or an unknown channel', async () => {
    expect((await capture({ email: 'anon@example.org', source: 'trade_fair' })).name).toBeNull();
    await expectDomainError(capture({ email: 'anon@example.org', source: 'Trade Fair' }), 'BAD_USER_INPUT', /^source must be/);
    await expectDomainError(capture({ email: 'anon@example.org', source: 'web', channelId: 999_999n }), 'NOT_FOUND');
  });
});
