import type { ReturnStatus } from '@shop/platform';
import { DomainError } from '../kernel/index.ts';

/** What can happen to a return: each move leads from some statuses to one other. */
export type ReturnMove = 'submit' | 'receive_part' | 'receive_all' | 'refund' | 'cancel' | 'expire' | 'close';

/**
 * The return (RMA) lifecycle, in one place. A draft is submitted (REQUESTED), or cancelled, or
 * expires when nobody submits it in time; a return credited in advance expires when its goods do not
 * arrive in time. Goods arrive in one or several receipts: PARTIALLY_RECEIVED
 * until every unit asked back is in, then RECEIVED; REFUNDED once the refunds of its receipts succeeded.
 * Once goods arrived a return is no longer cancelled: what came back is refunded. One whose other
 * units will not come is closed (CLOSED, not RECEIVED: units are missing), by staff or, credited in
 * advance, when its goods do not arrive in time.
 */
export const RETURN_TRANSITIONS: Readonly<Record<ReturnStatus, Readonly<Partial<Record<ReturnMove, ReturnStatus>>>>> = {
  DRAFT: { submit: 'REQUESTED', cancel: 'CANCELLED', expire: 'EXPIRED' },
  REQUESTED: { receive_part: 'PARTIALLY_RECEIVED', receive_all: 'RECEIVED', cancel: 'CANCELLED', expire: 'EXPIRED' },
  PARTIALLY_RECEIVED: { receive_part: 'PARTIALLY_RECEIVED', receive_all: 'RECEIVED', close: 'CLOSED' },
  RECEIVED: { refund: 'REFUNDED' },
  REFUNDED: {},
  CANCELLED: {},
  EXPIRED: {},
  CLOSED: {},
};

const DONE: Record<ReturnMove, string> = {
  submit: 'submitted',
  receive_part: 'received',
  receive_all: 'received',
  refund: 'refunded',
  cancel: 'cancelled',
  expire: 'expired',
  close: 'closed',
};

/** The status `move` leads to from `from`; BAD_USER_INPUT naming the status and what it allows otherwise. */
export function returnStatusAfter(returnId: bigint, from: ReturnStatus, move: ReturnMove): ReturnStatus {
  const to = RETURN_TRANSITIONS[from][move];
  if (to !== undefined) return to;
  const allowed = [...new Set(Object.keys(RETURN_TRANSITIONS[from]).map((other) => DONE[other as ReturnMove]))];
  const choices = allowed.length > 1 ? `${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}` : allowed.join('');
  const next = allowed.length === 0 ? `${from} is final` : `a ${from} return can only be ${choices}`;
  throw new DomainError('BAD_USER_INPUT', `return ${returnId} is ${from}: it cannot be ${DONE[move]} (${next})`, { field: 'returnId', status: from });
}

/** The statuses in which a return still waits for goods: it holds every unit it asked back. */
const AWAITING_GOODS: readonly ReturnStatus[] = ['REQUESTED', 'PARTIALLY_RECEIVED'];

/**
 * How many units of one order line a return keeps from other returns as of `now`: all it asked back
 * while it waits for them (a draft until its expiry), only what arrived once it is closed.
 */
export function unitsHeld(line: { quantityRequested: number; quantityReceived: number }, rma: { status: ReturnStatus; draftExpiresAt: Date }, now: Date): number {
  const waiting = AWAITING_GOODS.includes(rma.status) || (rma.status === 'DRAFT' && rma.draftExpiresAt > now);
  return waiting ? line.quantityRequested : line.quantityReceived;
}
