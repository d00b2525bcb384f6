import type { EventListener, Logger, RunTransaction } from '@shop/platform';
import { type DomainDeps } from '@shop/domain/kernel';
import { runRefundRequest } from '@shop/domain/flows';
import { WORKFLOW_TYPES } from '@shop/domain/workflows';

/** What the in-process refunds need once the outbox runs. */
export interface EmbeddedRefundDeps {
  readonly transaction: RunTransaction;
  readonly deps: DomainDeps;
  readonly logger: Logger;
}

export interface EmbeddedRefunds {
  readonly listener: EventListener<'payments.refund_requested'>;
  start(deps: EmbeddedRefundDeps): void;
  /** Resolves once the requests handed over so far have run (stopping, and tests). */
  idle(): Promise<void>;
}

/**
 * Without a workflow engine the api runs a refund request's refunds itself, once per
 * payments.refund_requested (made, retried or sent to store credit by staff, or emitted again by the
 * reconciliation sweep): card refunds at the gateway, ledger credits. The listener only queues the
 * request, so the delivery commits at once instead of holding its transaction open while the gateway
 * answers; the refunds run after it, one request at a time, each refund in its own transaction under
 * its own key. A run that fails (a gateway that does not answer), or a process that stops before it,
 * leaves the request REQUESTED: the in-process reconciliation sweep hands it back here later.
 */
export function embeddedRefunds(): EmbeddedRefunds {
  let running: EmbeddedRefundDeps | undefined;
  const queued = new Set<string>();
  let tail: Promise<void> = Promise.resolve();

  async function run(deps: EmbeddedRefundDeps, requestId: string, eventId: string): Promise<void> {
    queued.delete(requestId);
    try {
      await runRefundRequest(deps.transaction, deps.deps, {
        requestId: BigInt(requestId),
        // The event's id names the run: a redelivery records a fault once.
        run: { workflow: WORKFLOW_TYPES.refundExecution, workflowId: `embedded-refund-${requestId}`, runId: eventId },
      });
    } catch (error) {
      deps.logger.warn({ err: error, refund_request_id: requestId }, `refund request ${requestId} did not run; the reconciliation sweep runs it again`);
    }
  }

  return {
    listener: {
      name: 'refund_execution_in_process',
      event: 'payments.refund_requested',
      handle(_tx, event) {
        const deps = running;
        if (deps === undefined) throw new Error('the in-process refunds are not started yet');
        // Queued already and not started: that run reads the request as it will be, and does this one's work too.
        if (queued.has(event.refund_request_id)) return Promise.resolve();
        queued.add(event.refund_request_id);
        tail = tail.then(() => run(deps, event.refund_request_id, event.event_id));
        return Promise.resolve();
      },
    },
    start(deps) {
      running = deps;
    },
    idle: () => tail,
  };
}
