import type { MercuriusContext } from 'mercurius';
import { authorizeStaff, DomainError, type CorePermission, type Tx } from '@shop/domain';

export type Context = MercuriusContext;

/** A business operation: one transaction of the outbox, so its events commit with it. */
export function inTransaction<T>(context: Context, work: (tx: Tx) => Promise<T>): Promise<T> {
  return context.shop.services.transaction(work);
}

/** A staff operation: the permission is checked in the operation's own transaction, so a revoked role applies at once. */
export function asStaff<T>(context: Context, permission: CorePermission, work: (tx: Tx, staffUserId: bigint) => Promise<T>): Promise<T> {
  return inTransaction(context, async (tx) => work(tx, await authorizeStaff(tx, context.shop.principal, permission)));
}

/** Trimmed; BAD_USER_INPUT naming the argument when longer than `max`; undefined when blank. */
export function optionalArgument(value: string | null | undefined, argument: string, max: number): string | undefined {
  const text = value?.trim() ?? '';
  if (text.length > max) throw new DomainError('BAD_USER_INPUT', `${argument} must be at most ${max} characters`, { field: argument });
  return text === '' ? undefined : text;
}

export function notFound(what: string, id: bigint | string, field: string): DomainError {
  return new DomainError('NOT_FOUND', `${what} ${id} does not exist`, { field });
}
