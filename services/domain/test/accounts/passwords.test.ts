import { describe, expect, it } from 'vitest';
import { assertPasswordPolicy, checkPassword, hashPassword, verifyPassword } from '../../src/accounts/passwords.ts';
import { normalizeEmail } from '../../src/accounts/email.ts';
import { expectDomainError } from '../support/accounts.ts';

describe('password hashing', () => {
  it('stores scrypt with its parameters, a 16-byte salt and a fresh salt each time', async () => {
    const first = await hashPassword('correct horse battery');
    const second = await hashPassword('correct horse battery');
    const [scheme, n, r, p, salt, key] = first.split('$');
    expect([scheme, n, r, p]).toEqual(['scrypt', '131072', '8', '1']);
    expect(Buffer.from(salt ?? '', 'base64')).toHaveLength(16);
    expect(Buffer.from(key ?? '', 'base64')).toHaveLength(32);
    expect(second).not.toBe(first);
  });

  it('verifies the right password and refuses a wrong one or a stored value that is not a hash', async () => {
    const stored = await hashPassword('correct horse battery');
    expect(await verifyPassword('correct horse battery', stored)).toBe(true);
    expect(await verifyPassword('correct horse batterY', stored)).toBe(false);
    expect(await verifyPassword('correct horse battery', 'plain-text')).toBe(false);
    expect(await verifyPassword('correct horse battery', stored.replace('$131072$', '$99999999$'))).toBe(false);
  });

  it('spends the hashing work and answers false when there is no account', async () => {
    expect(await checkPassword('correct horse battery', undefined)).toBe(false);
  });
});

describe('password policy', () => {
  it('accepts 10 to 200 characters, counting characters rather than bytes', () => {
    expect(() => assertPasswordPolicy('a'.repeat(10))).not.toThrow();
    expect(() => assertPasswordPolicy('a'.repeat(200))).not.toThrow();
    expect(() => assertPasswordPolicy('🔑'.repeat(10))).not.toThrow();
  });

  it('refuses shorter and longer passwords as BAD_USER_INPUT saying the limit', async () => {
    await expectDomainError(
      Promise.resolve().then(() => assertPasswordPolicy('a'.repeat(9))),
      'BAD_USER_INPUT',
      'password must be at least 10 characters',
    );
    await expectDomainError(
      Promise.resolve().then(() => assertPasswordPolicy('a'.repeat(201))),
      'BAD_USER_INPUT',
      'password must be at most 200 characters',
    );
  });
});

describe('emails', () => {
  it('are trimmed and lower-cased', () => {
    expect(normalizeEmail('  Ada@Example.COM ')).toBe('ada@example.com');
  });

  it('refuses what is not an address or is longer than 320 characters', async () => {
    for (const bad of ['ada', 'ada@', '@example.com', 'ada @example.com', `${'a'.repeat(310)}@example.com`]) {
      await expectDomainError(
        Promise.resolve().then(() => normalizeEmail(bad)),
        'BAD_USER_INPUT',
      );
    }
  });
});

describe('memory', () => {
  it('derives one hash at a time, so a burst of sign-ins holds one 128 MiB work area, not one per sign-in', async () => {
    const rss = () => process.memoryUsage().rss;
    const before = rss();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rss())), 5);
    try {
      await Promise.all(Array.from({ length: 4 }, () => hashPassword('correct horse battery')));
    } finally {
      clearInterval(sampler);
    }
    // Four at once would need 512 MiB more; one at a time, about 128 MiB.
    expect(peak - before).toBeLessThan(300 * 1024 * 1024);
  });
});
