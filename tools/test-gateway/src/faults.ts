// What the test gateway can be told to do wrong, and to which requests.
import type { OperationKind } from '@shop/platform';

export type Fault =
  /** Records the operation as declined (`card_declined`), with no effect on the authorization. */
  | { readonly kind: 'decline' }
  /** Records nothing and never answers: the caller's timeout decides. */
  | { readonly kind: 'timeout' }
  /** Records the operation, then answers 500 as if the answer were lost: the same key replays what was recorded. */
  | { readonly kind: 'commit_then_error' }
  /** Records the operation, then never answers: the timeout a caller cannot tell from `timeout`. */
  | { readonly kind: 'commit_then_timeout' }
  /** Answers a refund `pending`; it settles (looks up as approved) once the gateway clock is `days` later. */
  | { readonly kind: 'refund_pending'; readonly days: number }
  /** Answers an authorization `requires_action`; it becomes capturable once the action is completed. */
  | { readonly kind: 'requires_action' };

export type FaultKind = Fault['kind'];

/** A fault and the requests it applies to: every condition given must match. */
export interface FaultRule {
  readonly fault: Fault;
  readonly operation?: OperationKind;
  /** The card of the authorization, for its authorize, capture, void and refund alike. */
  readonly cardToken?: string;
  readonly idempotencyKey?: string;
  /** How many requests it applies to before it is used up; `'always'` never is. 1 by default. */
  readonly times?: number | 'always';
}

const OPERATIONS_OF: Record<FaultKind, readonly OperationKind[]> = {
  decline: ['authorize', 'capture', 'refund'],
  timeout: ['authorize', 'capture', 'void', 'refund'],
  commit_then_error: ['authorize', 'capture', 'void', 'refund'],
  commit_then_timeout: ['authorize', 'capture', 'void', 'refund'],
  refund_pending: ['refund'],
  requires_action: ['authorize'],
};

/** The operations a rule applies to, or what is wrong with it. */
export function operationsOfRule(rule: FaultRule): readonly OperationKind[] | string {
  if (rule.fault.kind === 'refund_pending' && !(rule.fault.days > 0)) return 'a refund_pending fault needs days > 0';
  const possible = OPERATIONS_OF[rule.fault.kind];
  if (rule.operation === undefined) return possible;
  return possible.includes(rule.operation)
    ? [rule.operation]
    : `the fault ${rule.fault.kind} cannot apply to ${rule.operation}; it applies to ${possible.join(', ')}`;
}
