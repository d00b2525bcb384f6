import { SignJWT, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { signAccessToken, verifyAccessToken } from '../../src/auth/access-tokens.ts';
import type { Principal } from '../../src/auth/principal.ts';
import { tokenSettings, type TokenSettings } from '../../src/auth/token-settings.ts';
import { expectDomainError } from '../support/accounts.ts';

const OLD = 'the-signing-key-before-the-rotation-0123456789';
const NEW = 'the-signing-key-after-the-rotation-9876543210';
const START = new Date('2026-11-25T12:00:00.000Z');
let now = START;
const clock = { now: () => now };
const before = tokenSettings(OLD, clock);
const rotated = tokenSettings(NEW, { ...clock, previousSecret: OLD });
const staff: Principal = { kind: 'staff', staffUserId: 9n };

const kidOf = (token: string) => decodeProtectedHeader(token).kid;
const rejectedAs = async (token: string, settings: TokenSettings, reason: string) =>
  expect((await expectDomainError(verifyAccessToken(token, settings), 'UNAUTHENTICATED')).details).toEqual({ reason });

/** A token as an issuer of our claims would sign it, with the header given. */
const handSigned = (secret: string, header: { kid?: string }) =>
  new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT', ...header })
    .setSubject('staff:9')
    .setIssuer('shop')
    .setAudience('shop-api')
    .setIssuedAt(Math.floor(now.getTime() / 1000))
    .setExpirationTime(Math.floor(now.getTime() / 1000) + 900)
    .sign(new TextEncoder().encode(secret));

describe('rotating the access token signing key (SECRET_KEY, SECRET_KEY_PREVIOUS)', () => {
  it('names the signing key in every token by a kid derived from it, never the key itself', async () => {
    now = START;
    const [first, second] = [(await signAccessToken(staff, before)).token, (await signAccessToken(staff, before)).token];
    const kid = kidOf(first);
    expect(kid).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(kidOf(second)).toBe(kid);
    expect(kidOf((await signAccessToken(staff, rotated)).token)).not.toBe(kid);
    expect(first).not.toContain(Buffer.from(OLD).toString('base64url'));
  });

  it('signs nobody out: a token of the previous key is accepted after the rotation until it expires, and new tokens use the new key', async () => {
    now = START;
    const issuedBefore = (await signAccessToken(staff, before)).token;
    const issuedAfter = (await signAccessToken(staff, rotated)).token;
    expect(await verifyAccessToken(issuedBefore, rotated)).toEqual(staff);
    expect(await verifyAccessToken(issuedAfter, rotated)).toEqual(staff);
    await rejectedAs(issuedAfter, before, 'bad_signature');

    now = new Date(START.getTime() + 15 * 60 * 1000);
    await rejectedAs(issuedBefore, rotated, 'expired');
  });

  it('refuses a token of the previous key once it is no longer configured', async () => {
    now = START;
    const issuedBefore = (await signAccessToken(staff, before)).token;
    await rejectedAs(issuedBefore, tokenSettings(NEW, clock), 'bad_signature');
  });

  it('refuses a token naming a key it does not hold, or naming one key but signed with another', async () => {
    now = START;
    await rejectedAs(await handSigned('a-stranger-key-of-plenty-of-characters-000', { kid: 'AAAAAAAAAAAAAAAA' }), rotated, 'bad_signature');
    const previousKid = kidOf((await signAccessToken(staff, before)).token) as string;
    await rejectedAs(await handSigned('a-stranger-key-of-plenty-of-characters-000', { kid: previousKid }), rotated, 'bad_signature');
    const currentKid = kidOf((await signAccessToken(staff, rotated)).token) as string;
    await rejectedAs(await handSigned(OLD, { kid: currentKid }), rotated, 'bad_signature');
  });

  it('accepts a token without a kid (issued before tokens carried one) only under the current key', async () => {
    now = START;
    expect(await verifyAccessToken(await handSigned(NEW, {}), rotated)).toEqual(staff);
    await rejectedAs(await handSigned(OLD, {}), rotated, 'bad_signature');
  });
});
