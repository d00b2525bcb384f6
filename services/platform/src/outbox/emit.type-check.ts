/**
 * Compile-time checks of the emitter's types, enforced by `npm run typecheck`: it fails if either
 * line below compiles, i.e. if an unregistered name or a wrong payload shape were accepted.
 * Nothing here runs; the parameter is not called `emit`, so check:events does not count these
 * deliberately wrong calls as emit sites.
 */
import type { Emit } from './emit.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import type { EventPayloads } from '../events/catalog.ts';

export function _emitRejectsWhatTheRegistryDoesNot(
  emitUnderTest: Emit,
  tx: Prisma.TransactionClient,
  lead: EventPayloads['shop.leads.created.v1'],
): void {
  // @ts-expect-error shop.orders.shipped.v1 is not a registered event
  void emitUnderTest(tx, 'shop.orders.shipped.v1', {});
  // @ts-expect-error lead_id must be a string
  void emitUnderTest(tx, 'shop.leads.created.v1', { ...lead, lead_id: 55 });
}
