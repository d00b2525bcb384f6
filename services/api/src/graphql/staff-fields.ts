import type { MercuriusContext } from 'mercurius';
import type { TransactionOptions } from '@shop/platform';
import { authorizeStaff } from '@shop/domain/auth';
import { type Tx } from '@shop/domain/kernel';

/** What a staff field's work gets: the transaction its permission was checked in, and who asked. */
export interface StaffCall {
  readonly tx: Tx;
  readonly staffUserId: bigint;
}

type Work<Args, Result, Call> = (args: Args, staff: Call, context: MercuriusContext) => Promise<Result>;

interface Binding {
  bind(permission: string): (root: unknown, args: unknown, context: MercuriusContext) => Promise<unknown>;
}

const BINDING = Symbol('staff field binding');

export interface StaffField<Args, Result> {
  (root: unknown, args: Args, context: MercuriusContext): Promise<Result>;
  readonly [BINDING]: Binding;
}

function staffResolver<Args, Result>(binding: Binding): StaffField<Args, Result> {
  const unbound = () => Promise.reject(new Error('a staff field runs only where its schema declares @staff(permission: ...)'));
  return Object.assign(unbound, { [BINDING]: binding });
}

/**
 * The resolver of a field whose schema declares `@staff(permission: ...)`: the work runs in the
 * transaction the permission is checked in, so a revoked role applies at once. The permission is
 * not repeated here: graph-areas.ts binds it from the schema, and refuses to start when a staff
 * field has no @staff or a @staff field has no staff resolver. `options`: for work that waits for the
 * payment gateway (GATEWAY_TRANSACTION).
 */
export function staffField<Args, Result>(work: Work<Args, Result, StaffCall>, options?: TransactionOptions): StaffField<Args, Result> {
  return staffResolver({
    bind: (permission) => (_root, args, context) =>
      context.shop.services.transaction(
        async (tx) => work(args as Args, { tx, staffUserId: await authorizeStaff(tx, context.shop.principal, permission) }, context),
        options,
      ),
  });
}

/**
 * Like staffField, for work that runs its own statements or transactions (a report that rolls days
 * up first): the permission is checked right before it, outside any transaction.
 */
export function staffRead<Args, Result>(work: Work<Args, Result, Omit<StaffCall, 'tx'>>): StaffField<Args, Result> {
  return staffResolver({
    bind: (permission) => async (_root, args, context) => {
      const { prisma } = context.shop.services;
      return work(args as Args, { staffUserId: await authorizeStaff(prisma, context.shop.principal, permission) }, context);
    },
  });
}

export function isStaffField(resolver: unknown): resolver is StaffField<unknown, unknown> {
  return typeof resolver === 'function' && BINDING in resolver;
}

/** The resolver GraphQL runs for a staff field requiring `permission`. */
export function bindStaffField(field: StaffField<unknown, unknown>, permission: string) {
  return field[BINDING].bind(permission);
}
