import { describe, expect, it } from 'vitest';
import {
  DomainError,
  type Limit,
  LIMITS,
  optionalText,
  requireAmount,
  requireCurrency,
  requireDescription,
  requirePositiveAmount,
  requirePrice,
  requireSlug,
  requireText,
} from '../../src/kernel/index.ts';

const FIVE: Limit = { max: 5, columns: ['t.c'] };

/** The DomainError `check` throws, as code, message and details. */
function refusal(check: () => unknown): { code: string; message: string; details: unknown } {
  try {
    check();
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { code: error.code, message: error.message, details: error.details };
  }
  throw new Error('the check accepted the value');
}

describe('requireText', () => {
  it('trims, and takes up to the limit in characters (code points, as VarChar counts)', () => {
    expect(requireText('name', '  Ada  ', FIVE)).toBe('Ada');
    expect(requireText('name', ' abcde ', FIVE)).toBe('abcde');
    expect(requireText('name', '😀😀😀😀😀', FIVE)).toBe('😀😀😀😀😀');
  });

  it('refuses blank, too long and NUL text as BAD_USER_INPUT naming the field', () => {
    expect(refusal(() => requireText('name', ' \n\t', FIVE))).toEqual({
      code: 'BAD_USER_INPUT',
      message: 'name must not be empty',
      details: { field: 'name' },
    });
    expect(refusal(() => requireText('name', 'abcdef', FIVE))).toEqual({
      code: 'BAD_USER_INPUT',
      message: 'name must be at most 5 characters',
      details: { field: 'name' },
    });
    expect(refusal(() => requireText('name', '😀😀😀😀😀😀', FIVE))).toMatchObject({ message: 'name must be at most 5 characters' });
    expect(refusal(() => requireText('note', 'a\u0000b', FIVE))).toEqual({
      code: 'BAD_USER_INPUT',
      message: 'note must not contain the NUL character (U+0000)',
      details: { field: 'note' },
    });
  });
});

describe('optionalText', () => {
  it('is null when absent or blank, trimmed otherwise, with the same refusals', () => {
    expect(optionalText('firstName', undefined, FIVE)).toBeNull();
    expect(optionalText('firstName', null, FIVE)).toBeNull();
    expect(optionalText('firstName', '   ', FIVE)).toBeNull();
    expect(optionalText('firstName', ' Bo ', FIVE)).toBe('Bo');
    expect(refusal(() => optionalText('firstName', 'abcdef', FIVE))).toMatchObject({ message: 'firstName must be at most 5 characters' });
    expect(refusal(() => optionalText('firstName', '\u0000', FIVE))).toMatchObject({
      message: 'firstName must not contain the NUL character (U+0000)',
    });
  });
});

describe('the field checks', () => {
  it('requireSlug takes lower-case words joined by hyphens, within its limit', () => {
    expect(requireSlug(' black-tee ', LIMITS.productSlug)).toBe('black-tee');
    expect(requireSlug('a'.repeat(300), LIMITS.productSlug)).toBe('a'.repeat(300));
    expect(refusal(() => requireSlug('a'.repeat(201), LIMITS.brandSlug))).toMatchObject({
      message: 'slug must be at most 200 characters',
      details: { field: 'slug' },
    });
    expect(refusal(() => requireSlug('Black Tee', LIMITS.brandSlug))).toMatchObject({
      message: 'slug must be lower-case words joined by hyphens, e.g. black-tee',
    });
  });

  it('requireDescription trims, may be empty, and is bounded', () => {
    expect(requireDescription('  Soft cotton.\n')).toBe('Soft cotton.');
    expect(requireDescription('')).toBe('');
    expect(requireDescription('d'.repeat(10_000))).toHaveLength(10_000);
    expect(refusal(() => requireDescription('d'.repeat(10_001)))).toMatchObject({
      message: 'description must be at most 10000 characters',
      details: { field: 'description' },
    });
  });

  it('requireCurrency takes ISO codes whose decimals a column holds', () => {
    expect(requireCurrency('KWD')).toBe('KWD');
    expect(refusal(() => requireCurrency('eur'))).toMatchObject({
      message: 'currency must be an ISO 4217 code such as EUR',
      details: { field: 'currency' },
    });
    expect(refusal(() => requireCurrency('CLF'))).toMatchObject({
      message: 'currency CLF has 4 decimals; the shop stores amounts with at most 3',
    });
  });

  it('requireAmount and requirePrice take non-negative amounts with at most the currency decimals', () => {
    expect(requireAmount('amount', '0', 'EUR').toFixed()).toBe('0');
    expect(requirePrice('19.9', 'EUR')).toBe('19.90');
    expect(requirePrice('1000', 'JPY')).toBe('1000');
    expect(refusal(() => requirePrice('19.999', 'EUR'))).toMatchObject({
      message: 'price must be an amount in EUR with at most 2 decimals, e.g. "19.90", not "19.999"',
      details: { field: 'price' },
    });
    expect(refusal(() => requireAmount('amount', '1.5', 'JPY'))).toMatchObject({
      message: 'amount must be an amount in JPY with no decimals, e.g. "20", not "1.5"',
    });
    expect(refusal(() => requireAmount('amount', '-1', 'EUR'))).toMatchObject({ details: { field: 'amount' } });
  });

  it('requirePositiveAmount refuses zero', () => {
    expect(requirePositiveAmount('0.01', 'EUR').toFixed()).toBe('0.01');
    expect(refusal(() => requirePositiveAmount('0.00', 'EUR'))).toEqual({
      code: 'BAD_USER_INPUT',
      message: 'the amount must be positive, not "0.00"',
      details: { field: 'amount' },
    });
  });
});
