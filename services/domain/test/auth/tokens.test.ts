import { createHash } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerCustomer } from '../../src/accounts/customers.ts';
import { signAccessToken, verifyAccessToken } from '../../src/auth/access-tokens.ts';
import { customerPrincipal, staffPrincipal, type CustomerPrincipal, type Principal } from '../../src/auth/principal.ts';
import { pruneFinishedSignIns, revokeAllRefreshTokens, revokeRefreshToken } from '../../src/auth/refresh-tokens.ts';
import { createStaffUser } from '../../src/auth/staff.ts';
import { tokenSettings, type TokenSettings } from '../../src/auth/token-settings.ts';
import { issueTokens, refreshTokens } from '../../src/auth/tokens.ts';
import type { Tx } from '../../src/kernel/context.ts';
import { createChannel, expectDomainError, openAccountsTest, type AccountsTest } from '../support/accounts.ts';

const SECRET = 'a-test-secret-that-is-long-enough-for-hs256-keys';
const START = new Date('2026-03-01T12:00:00.000Z');
let now = START;
const settings: TokenSettings = tokenSettings(SECRET, { now: () => now });
const later = (seconds: number) => new Date(START.getTime() + seconds * 1000);

const customer: Principal = { kind: 'customer', customerId: 42n, channelId: 7n, customerGroupId: 3n };
const staff: Principal = { kind: 'staff', staffUserId: 5n };

describe('access tokens', () => {
  it('carry the principal: a customer with channel and group, or a staff user, for 15 minutes by default', async () => {
    now = START;
    const signed = await signAccessToken(customer, settings);
    expect(signed.expiresAt).toEqual(later(15 * 60));
    expect(await verifyAccessToken(signed.token, settings)).toEqual(customer);
    const guestGroup = { ...customer, customerGroupId: null };
    expect(await verifyAccessToken((await signAccessToken(guestGroup, settings)).token, settings)).toEqual(guestGroup);
    expect(await verifyAccessToken((await signAccessToken(staff, settings)).token, settings)).toEqual(staff);

    const claims = JSON.parse(Buffer.from(signed.token.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
    expect(claims).toMatchObject({ sub: 'customer:42', iss: 'shop', aud: 'shop-api', channel_id: '7', customer_group_id: '3' });
  });

  it('refuse an expired token, at the second it expires', async () => {
    now = START;
    const { token } = await signAccessToken(staff, settings);
    now = later(15 * 60 - 1);
    await verifyAccessToken(token, settings);
    now = later(15 * 60);
    const error = await expectDomainError(verifyAccessToken(token, settings), 'UNAUTHENTICATED', 'access token expired');
    expect(error.details).toEqual({ reason: 'expired' });
  });

  it('refuse a tampered payload, another key and an unsigned token as a bad signature', async () => {
    now = START;
    const [header, , signature] = (await signAccessToken(customer, settings)).token.split('.');
    const forged = Buffer.from(JSON.stringify({ sub: 'staff:1', iss: 'shop', aud: 'shop-api', iat: 0, exp: 4_000_000_000 })).toString(
      'base64url',
    );
    await expectDomainError(
      verifyAccessToken(`${header}.${forged}.${signature}`, settings),
      'UNAUTHENTICATED',
      'access token signature is invalid',
    );

    const otherKey = (await signAccessToken(staff, tokenSettings('another-secret-entirely-of-some-length', { now: () => now }))).token;
    await expectDomainError(verifyAccessToken(otherKey, settings), 'UNAUTHENTICATED', 'access token signature is invalid');

    const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    await expectDomainError(verifyAccessToken(`${none}.${forged}.`, settings), 'UNAUTHENTICATED', 'access token signature is invalid');
  });

  it('refuse a token for another audience or from another issuer', async () => {
    now = START;
    const { token } = await signAccessToken(staff, settings);
    await expectDomainError(
      verifyAccessToken(token, { ...settings, audience: 'shop-admin' }),
      'UNAUTHENTICATED',
      'access token is meant for another audience',
    );
    await expectDomainError(
      verifyAccessToken(token, { ...settings, issuer: 'elsewhere' }),
      'UNAUTHENTICATED',
      'access token is from another issuer',
    );
  });

  it('refuse malformed tokens, including well-signed ones whose claims are not ours', async () => {
    now = START;
    const key = new TextEncoder().encode(SECRET);
    const signed = (sub: string) =>
      new SignJWT({})
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(sub)
        .setIssuer('shop')
        .setAudience('shop-api')
        .setIssuedAt(START)
        .setExpirationTime('5m')
        .sign(key);
    const noExpiry = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('staff:1')
      .setIssuer('shop')
      .setAudience('shop-api')
      .setIssuedAt(START)
      .sign(key);
    for (const token of ['', 'garbage', 'a.b.c', 'x'.repeat(10_000), await signed('admin'), await signed('customer:7'), noExpiry]) {
      await expectDomainError(verifyAccessToken(token, settings), 'UNAUTHENTICATED', 'access token is malformed');
    }
  });
});

describe('refresh tokens', () => {
  let t: AccountsTest;
  let channelId: bigint;
  let shopper: CustomerPrincipal;

  const inTx = <T>(work: (tx: Tx) => Promise<T>): Promise<T> => t.prisma.$transaction(work);
  const refresh = (token: string) => refreshTokens(t.prisma, token, settings);
  const rowOf = (token: string) =>
    t.prisma.refreshToken.findUnique({ where: { tokenHash: createHash('sha256').update(token).digest('hex') } });

  beforeAll(async () => {
    t = await openAccountsTest('accounts_tokens');
    channelId = await createChannel(t.prisma);
    const account = await t.outbox.transaction((tx) =>
      registerCustomer(tx, t.deps, { channelId, email: 'ada@example.com', password: 'correct horse battery' }),
    );
    shopper = customerPrincipal(account);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('are random, stored only as their SHA-256, and last 30 days by default', async () => {
    now = START;
    const pair = await inTx((tx) => issueTokens(tx, shopper, settings));
    expect(pair.refreshToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(pair.refreshTokenExpiresAt).toEqual(later(30 * 24 * 3600));
    expect(await verifyAccessToken(pair.accessToken, settings)).toEqual(shopper);
    const row = await rowOf(pair.refreshToken);
    expect(row).toMatchObject({ customerId: shopper.customerId, staffUserId: null, replacedAt: null, revokedAt: null });
    expect(await t.prisma.refreshToken.count({ where: { tokenHash: pair.refreshToken } })).toBe(0);
  });

  it('rotate: the old one is replaced by a new one of the same family, and the principal is read afresh', async () => {
    now = START;
    const first = await inTx((tx) => issueTokens(tx, shopper, settings));
    const group = await t.prisma.customerGroup.create({ data: { name: 'wholesale' } });
    await t.prisma.customer.update({ where: { id: shopper.customerId }, data: { customerGroupId: group.id } });

    now = later(600);
    const second = await refresh(first.refreshToken);
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect(second.refreshTokenExpiresAt).toEqual(later(600 + 30 * 24 * 3600));
    expect(second.principal).toEqual({ ...shopper, customerGroupId: group.id });
    expect(await verifyAccessToken(second.accessToken, settings)).toEqual(second.principal);

    const [old, fresh] = [await rowOf(first.refreshToken), await rowOf(second.refreshToken)];
    expect(old?.replacedAt).toEqual(later(600));
    expect(fresh).toMatchObject({ familyId: old?.familyId, replacedAt: null, revokedAt: null });
    await t.prisma.customer.update({ where: { id: shopper.customerId }, data: { customerGroupId: null } });
  });

  it('presenting a replaced token again revokes the whole family, and the revocation sticks', async () => {
    now = START;
    const first = await inTx((tx) => issueTokens(tx, shopper, settings));
    const second = await refresh(first.refreshToken);
    const third = await refresh(second.refreshToken);

    const error = await expectDomainError(
      refresh(first.refreshToken),
      'UNAUTHENTICATED',
      /already used; every session of this sign-in has been revoked/,
    );
    expect(error.details).toEqual({ reason: 'reused' });
    const family = await t.prisma.refreshToken.findMany({ where: { familyId: (await rowOf(first.refreshToken))?.familyId } });
    expect(family).toHaveLength(3);
    expect(family.every((row) => row.revokedAt !== null)).toBe(true);
    await expectDomainError(refresh(third.refreshToken), 'UNAUTHENTICATED', 'refresh token was revoked');
  });

  it('of two concurrent refreshes with one token, exactly one wins and the family is revoked', async () => {
    now = START;
    const pair = await inTx((tx) => issueTokens(tx, shopper, settings));
    const outcomes = await Promise.allSettled([refresh(pair.refreshToken), refresh(pair.refreshToken)]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    const winner = outcomes.find((outcome) => outcome.status === 'fulfilled');
    await expectDomainError(refresh(winner?.value.refreshToken ?? ''), 'UNAUTHENTICATED', 'refresh token was revoked');
  });

  it('refuse an expired token and one that was never issued', async () => {
    now = START;
    const pair = await inTx((tx) => issueTokens(tx, shopper, settings));
    now = later(30 * 24 * 3600);
    await expectDomainError(refresh(pair.refreshToken), 'UNAUTHENTICATED', 'refresh token expired');
    await expectDomainError(refresh('A'.repeat(43)), 'UNAUTHENTICATED', 'refresh token is not valid');
    await expectDomainError(refresh('short'), 'UNAUTHENTICATED', 'refresh token is not valid');
  });

  it('sign-out revokes the sign-in; unknown tokens are ignored', async () => {
    now = START;
    const pair = await inTx((tx) => issueTokens(tx, shopper, settings));
    const rotated = await refresh(pair.refreshToken);
    expect(await inTx((tx) => revokeRefreshToken(tx, rotated.refreshToken, settings))).toBe(true);
    await expectDomainError(refresh(rotated.refreshToken), 'UNAUTHENTICATED', 'refresh token was revoked');
    expect(await inTx((tx) => revokeRefreshToken(tx, 'B'.repeat(43), settings))).toBe(false);
  });

  it('signing out everywhere revokes every live token of the principal only', async () => {
    now = START;
    const staffUser = await inTx((tx) =>
      createStaffUser(tx, { email: 'ops@shop.example', password: 'correct horse battery', name: 'Ops' }),
    );
    const operator = staffPrincipal(staffUser);
    const [phone, laptop] = [
      await inTx((tx) => issueTokens(tx, operator, settings)),
      await inTx((tx) => issueTokens(tx, operator, settings)),
    ];
    const customerSession = await inTx((tx) => issueTokens(tx, shopper, settings));

    expect(await inTx((tx) => revokeAllRefreshTokens(tx, operator, settings))).toBe(2);
    await expectDomainError(refresh(phone.refreshToken), 'UNAUTHENTICATED', 'refresh token was revoked');
    await expectDomainError(refresh(laptop.refreshToken), 'UNAUTHENTICATED', 'refresh token was revoked');
    expect((await refresh(customerSession.refreshToken)).principal).toEqual(shopper);
  });

  it('a deactivated staff user cannot refresh', async () => {
    now = START;
    const staffUser = await inTx((tx) =>
      createStaffUser(tx, { email: 'gone@shop.example', password: 'correct horse battery', name: 'Gone' }),
    );
    const pair = await inTx((tx) => issueTokens(tx, staffPrincipal(staffUser), settings));
    await t.prisma.staffUser.update({ where: { id: staffUser.id }, data: { active: false } });
    await expectDomainError(refresh(pair.refreshToken), 'UNAUTHENTICATED', 'the account can no longer sign in');
    expect((await rowOf(pair.refreshToken))?.revokedAt).not.toBeNull();
  });

  it('are pruned once every token of their sign-in expired over a day ago; a live sign-in keeps its replaced tokens', async () => {
    // Pruning compares with the database's clock, so these sign-ins are placed around the real now.
    const day = 24 * 3600 * 1000;
    const at = (offsetDays: number) => tokenSettings(SECRET, { now: () => new Date(Date.now() + offsetDays * day) });
    const familyOf = async (token: string) => (await rowOf(token))?.familyId as string;
    const familySize = async (familyId: string) => t.prisma.refreshToken.count({ where: { familyId } });

    const ended = await inTx((tx) => issueTokens(tx, shopper, at(-32)));
    const endedRotated = await refreshTokens(t.prisma, ended.refreshToken, at(-31.5));
    const justEnded = await inTx((tx) => issueTokens(tx, shopper, at(-30.5)));
    const stolen = await inTx((tx) => issueTokens(tx, shopper, at(-40)));
    const current = await refreshTokens(t.prisma, stolen.refreshToken, at(-20));
    const [endedFamily, justEndedFamily, liveFamily] = await Promise.all([
      familyOf(ended.refreshToken),
      familyOf(justEnded.refreshToken),
      familyOf(stolen.refreshToken),
    ]);
    expect(await familySize(endedFamily)).toBe(2);
    expect(await rowOf(endedRotated.refreshToken)).not.toBeNull();

    expect(await pruneFinishedSignIns(t.platform.database.pool)).toBeGreaterThanOrEqual(2);
    expect(await familySize(endedFamily)).toBe(0);
    expect(await familySize(justEndedFamily)).toBe(1);
    expect(await familySize(liveFamily)).toBe(2);
    // The expired, replaced token of the live sign-in is still known: presenting it revokes the sign-in.
    await expectDomainError(refresh(stolen.refreshToken), 'UNAUTHENTICATED', /already used/);
    await expectDomainError(refreshTokens(t.prisma, current.refreshToken, at(0)), 'UNAUTHENTICATED', 'refresh token was revoked');
  });
});

describe('token settings', () => {
  it('default to issuer shop, audience shop-api, 15 minutes and 30 days, and refuse an empty secret or a bad lifetime', () => {
    expect(tokenSettings('s')).toMatchObject({
      issuer: 'shop',
      audience: 'shop-api',
      accessTokenSeconds: 900,
      refreshTokenSeconds: 2_592_000,
    });
    expect(() => tokenSettings('')).toThrow(/non-empty secret/);
    expect(() => tokenSettings('s', { accessTokenSeconds: 0 })).toThrow(/accessTokenSeconds/);
  });
});
