import { ReturnStatus } from '@shop/platform';
import { defineMachine, type StateMachine } from '../kernel/index.ts';

/** What can happen to a return: each move leads from some statuses to one other. */
export type ReturnMove = 'submit' | 'receive_part' | 'receive_all' | 'refund' | 'cancel' | 'expire' | 'close';

const DONE: Record<ReturnMove, string> = {
  submit: 'submitted',
  receive_part: 'received',
  receive_all: 'received',
  refund: 'refunded',
  cancel: 'cancelled',
  expire: 'expired',
  close: 'closed',
};

const STATUS_CHANGED = 'shop.returns.status_changed.v1';

/**
 * The return (RMA) lifecycle, in one place. A draft is submitted (REQUESTED), or cancelled, or
 * expires when nobody submits it in time; a return credited in advance expires when its goods do not
 * arrive in time. Goods arrive in one or several receipts: PARTIALLY_RECEIVED
 * until every unit asked back is in, then RECEIVED; REFUNDED once the refunds of its receipts succeeded.
 * Once goods arrived a return is no longer cancelled: what came back is refunded. One whose other
 * units will not come is closed (CLOSED, not RECEIVED: units are missing), by staff or, credited in
 * advance, when its goods do not arrive in time. A second partial receipt leaves the status as it
 * was and emits nothing.
 */
export const returnMachine: StateMachine<ReturnStatus, ReturnMove> = defineMachine<ReturnStatus, ReturnMove>({
  entity: 'return',
  states: Object.values(ReturnStatus),
  moves: {
    submit: { from: ['DRAFT'], to: 'REQUESTED', emits: STATUS_CHANGED },
    receive_part: { from: ['REQUESTED', 'PARTIALLY_RECEIVED'], to: 'PARTIALLY_RECEIVED', emits: STATUS_CHANGED },
    receive_all: { from: ['REQUESTED', 'PARTIALLY_RECEIVED'], to: 'RECEIVED', emits: STATUS_CHANGED },
    refund: { from: ['RECEIVED'], to: 'REFUNDED', emits: STATUS_CHANGED },
    cancel: { from: ['DRAFT', 'REQUESTED'], to: 'CANCELLED', emits: STATUS_CHANGED },
    expire: { from: ['DRAFT', 'REQUESTED'], to: 'EXPIRED', emits: STATUS_CHANGED },
    close: { from: ['PARTIALLY_RECEIVED'], to: 'CLOSED', emits: STATUS_CHANGED },
  },
  refuse: ({ id, from, move, allowed }) => {
    const done = [...new Set(allowed.map((other) => DONE[other]))];
    const choices = done.length > 1 ? `${done.slice(0, -1).join(', ')} or ${done.at(-1)}` : done.join('');
    const next = done.length === 0 ? `${from} is final` : `a ${from} return can only be ${choices}`;
    return { message: `return ${id} is ${from}: it cannot be ${DONE[move]} (${next})`, details: { field: 'returnId', status: from } };
  },
});

/** The status `move` leads to from `from`; BAD_USER_INPUT naming the status and what it allows otherwise. */
export function returnStatusAfter(returnId: bigint, from: ReturnStatus, move: ReturnMove): ReturnStatus {
  return returnMachine.next(returnId, from, move);
}

/** The statuses in which a return still waits for goods: it holds every unit it asked back. */
const AWAITING_GOODS: readonly ReturnStatus[] = ['REQUESTED', 'PARTIALLY_RECEIVED'];

/**
 * How many units of one order line a return keeps from other returns as of `now`: all it asked back
 * while it waits for them (a draft until its expiry), only what arrived once it is closed.
 */
export function unitsHeld(
  line: { quantityRequested: number; quantityReceived: number },
  rma: { status: ReturnStatus; draftExpiresAt: Date },
  now: Date,
): number {
  const waiting = AWAITING_GOODS.includes(rma.status) || (rma.status === 'DRAFT' && rma.draftExpiresAt > now);
  return waiting ? line.quantityRequested : line.quantityReceived;
}
