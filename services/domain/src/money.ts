import { Prisma } from '@shop/platform';

export type Money = Prisma.Decimal;

export const money = (value: string | number | Money): Money => new Prisma.Decimal(value);

/** Two decimals, rounded half up: the form every amount takes in events and GraphQL. */
export const moneyString = (value: Money): string => value.toDecimalPlaces(2, Prisma.Decimal.ROUND_HALF_UP).toFixed(2);

export const sum = (values: readonly Money[]): Money => values.reduce((total, value) => total.add(value), money(0));
