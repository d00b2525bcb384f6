import { RefundRequestStatus, RefundStatus } from '@shop/platform';
import { defineMachine, type StateMachine } from '../kernel/index.ts';

const REFUND_REQUESTED = 'payments.refund_requested';

export type RefundMove = 'settle' | 'wait' | 'fail' | 'retry' | 'send_to_store_credit';

/**
 * One refund's life: written REQUESTED; the gateway approves it (or a ledger credits it: SUCCEEDED),
 * answers pending (PENDING, looked up until it settles, still PENDING while the gateway says so) or
 * refuses it for good (FAILED). Staff retry a FAILED one as a new attempt, or send it to store credit
 * (CANCELED, and a new REQUESTED refund to STORE_CREDIT replaces it); both hand the request back to
 * its workflow.
 */
export const refundMachine: StateMachine<RefundStatus, RefundMove> = defineMachine<RefundStatus, RefundMove>({
  entity: 'refund',
  states: Object.values(RefundStatus),
  moves: {
    settle: { from: ['REQUESTED', 'PENDING'], to: 'SUCCEEDED', emits: 'shop.payments.refund_completed.v1' },
    wait: { from: ['REQUESTED', 'PENDING'], to: 'PENDING', emits: null },
    fail: { from: ['REQUESTED', 'PENDING'], to: 'FAILED', emits: null },
    retry: { from: ['FAILED'], to: 'REQUESTED', emits: REFUND_REQUESTED },
    send_to_store_credit: { from: ['FAILED'], to: 'CANCELED', emits: REFUND_REQUESTED },
  },
});

export type RefundRequestMove = 'succeed' | 'need_attention' | 'reopen';

/**
 * A refund request follows its refunds (the CANCELED ones left out): one FAILED is NEEDS_ATTENTION,
 * all SUCCEEDED is SUCCEEDED. Staff's retry of a refund (or its move to store credit) reopens it:
 * REQUESTED again, handed to its workflow; a request still REQUESTED is handed over again the same way.
 */
export const refundRequestMachine: StateMachine<RefundRequestStatus, RefundRequestMove> = defineMachine<
  RefundRequestStatus,
  RefundRequestMove
>({
  entity: 'refund request',
  states: Object.values(RefundRequestStatus),
  moves: {
    succeed: { from: ['REQUESTED'], to: 'SUCCEEDED', emits: null },
    need_attention: { from: ['REQUESTED'], to: 'NEEDS_ATTENTION', emits: null },
    reopen: { from: ['REQUESTED', 'NEEDS_ATTENTION'], to: 'REQUESTED', emits: REFUND_REQUESTED },
  },
});
