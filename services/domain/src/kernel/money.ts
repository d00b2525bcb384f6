import { Prisma } from '@shop/platform';

export type Money = Prisma.Decimal;

export const money = (value: string | number | Money): Money => new Prisma.Decimal(value);

/**
 * Where Intl (CLDR's display digits) differs from the ISO 4217 exponent gateways count minor units
 * in: CLDR shows these without their ISO decimals (IQD with none instead of 3).
 */
const ISO_EXPONENT_UNLIKE_INTL: Readonly<Record<string, number>> = {
  AFN: 2,
  ALL: 2,
  COP: 2,
  HUF: 2,
  IDR: 2,
  IQD: 3,
  IRR: 2,
  KPW: 2,
  LAK: 2,
  LBP: 2,
  MGA: 2,
  MMK: 2,
  PKR: 2,
  SLL: 2,
  SOS: 2,
  SYP: 2,
  YER: 2,
};

const exponents = new Map<string, number>();

/** The ISO 4217 exponent of a currency: 2 for EUR, 0 for JPY, 3 for KWD. The one place that knows it. */
export function exponentOf(currency: string): number {
  let exponent = exponents.get(currency);
  if (exponent === undefined) {
    exponent =
      ISO_EXPONENT_UNLIKE_INTL[currency] ??
      new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ??
      2;
    exponents.set(currency, exponent);
  }
  return exponent;
}

/** An amount rounded half up to the currency's exponent: every computed amount (tax, shares, totals) goes through it. */
export const roundMoney = (value: Money, currency: string): Money =>
  value.toDecimalPlaces(exponentOf(currency), Prisma.Decimal.ROUND_HALF_UP);

/** The form every amount takes in events, GraphQL and SQL parameters: "1191" JPY, "19.90" EUR, "12.345" KWD. */
export const moneyString = (value: Money, currency: string): string => roundMoney(value, currency).toFixed(exponentOf(currency));

/** True when the amount is a whole number of the currency's minor units (19.90 EUR, not 0.5 JPY). */
export const fitsCurrency = (value: Money, currency: string): boolean => value.decimalPlaces() <= exponentOf(currency);

export const sum = (values: readonly Money[]): Money => values.reduce((total, value) => total.add(value), money(0));
