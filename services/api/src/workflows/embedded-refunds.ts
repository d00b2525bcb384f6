import type { EventListener, RunTransaction } from '@shop/platform';
import { runRefundRequest, type DomainDeps } from '@shop/domain';
import { WORKFLOW_TYPES } from '@shop/domain/workflows';

/** What the in-process refunds need once the outbox runs. */
export interface EmbeddedRefundDeps {
  readonly transaction: RunTransaction;
  readonly deps: DomainDeps;
}

/**
 * Without a workflow engine the api runs a refund request's refunds itself, once per
 * payments.refund_requested (made, retried or sent to store credit by staff): card refunds at the
 * gateway, ledger credits. Nothing polls afterwards: a refund the gateway leaves pending stays PENDING.
 * A gateway that does not answer fails the delivery, which the outbox retries with the same keys.
 */
export function embeddedRefunds(): { listener: EventListener<'payments.refund_requested'>; start(deps: EmbeddedRefundDeps): void } {
  let running: EmbeddedRefundDeps | undefined;
  return {
    listener: {
      name: 'refund_execution_in_process',
      event: 'payments.refund_requested',
      async handle(_tx, event) {
        if (running === undefined) throw new Error('the in-process refunds are not started yet');
        const workflowId = `embedded-refund-${event.refund_request_id}`;
        await runRefundRequest(running.transaction, running.deps, {
          requestId: BigInt(event.refund_request_id),
          // The event's id names the run: a redelivery records a fault once.
          run: { workflow: WORKFLOW_TYPES.refundExecution, workflowId, runId: event.event_id },
        });
      },
    },
    start(deps) {
      running = deps;
    },
  };
}
