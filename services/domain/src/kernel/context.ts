import type { Emit, PaymentGateway, Prisma } from '@shop/platform';

export type Tx = Prisma.TransactionClient;

/** What domain operations need besides their transaction: the outbox and a clock (tests set it). */
export interface DomainDeps {
  readonly emit: Emit;
  readonly now: () => Date;
  /** Card payments go through it; without one, checkout refuses a card and money moves are refused. */
  readonly gateway?: PaymentGateway;
}

/** Who is shopping: a signed-in customer, a guest's session, or both. */
export interface Shopper {
  readonly customerId?: bigint;
  readonly sessionId?: string;
}

/** Ids are bigint in the database and decimal strings everywhere else. */
export const idString = (id: bigint): string => id.toString();
export const optionalId = (id: bigint | null | undefined): string | null => (id == null ? null : id.toString());
