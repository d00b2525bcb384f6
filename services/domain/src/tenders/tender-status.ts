import { TenderStatus } from '@shop/platform';
import { defineMachine, type StateMachine } from '../kernel/index.ts';

export type TenderMove = 'capture' | 'void' | 'refund' | 'refund_part';

const MONEY_MOVED = 'shop.payments.money_moved.v1';

/**
 * A tender's life: a card's is written AUTHORIZED (a cart tender), store credit's and a gift card's
 * CAPTURED. A refund that gives back the rest of the capture makes it REFUNDED; one that gives back
 * part of it leaves it CAPTURED. The topic is a card's: a store credit or gift card tender moves no
 * money at the gateway, its ledger entry emits shop.payments.store_credit_moved.v1 instead.
 */
export const tenderMachine: StateMachine<TenderStatus, TenderMove> = defineMachine<TenderStatus, TenderMove>({
  entity: 'tender',
  states: Object.values(TenderStatus),
  moves: {
    capture: { from: ['AUTHORIZED'], to: 'CAPTURED', emits: MONEY_MOVED },
    void: { from: ['AUTHORIZED'], to: 'VOIDED', emits: MONEY_MOVED },
    refund: { from: ['CAPTURED'], to: 'REFUNDED', emits: MONEY_MOVED },
    refund_part: { from: ['CAPTURED'], to: 'CAPTURED', emits: MONEY_MOVED },
  },
});
