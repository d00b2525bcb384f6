import { OverdraftDraftStatus } from '@shop/platform';
import { defineMachine, type StateMachine } from '../kernel/index.ts';

/**
 * An overdraft draft's life: written DRAFT with the debit it lets go below zero, EXPIRED by the sweep
 * once past its expiry (its pending debit voided, which emits the entry's move). The design note's
 * CONFIRMED and COLLECTED are not built.
 */
export const overdraftDraftMachine: StateMachine<OverdraftDraftStatus, 'expire'> = defineMachine<OverdraftDraftStatus, 'expire'>({
  entity: 'overdraft draft',
  states: Object.values(OverdraftDraftStatus),
  moves: {
    expire: { from: ['DRAFT'], to: 'EXPIRED', emits: 'shop.payments.store_credit_moved.v1' },
  },
});
