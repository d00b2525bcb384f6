import { Client, Connection, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { WorkflowEngine, WorkflowStart, WorkflowType } from '@shop/platform';
import { TASK_QUEUE } from '@shop/domain/workflows';

/**
 * The dispatcher hands events to listeners one at a time: an engine that does not answer must not
 * hold back attribution and the other listeners for long. The outbox retries a call that timed out.
 */
const CALL_DEADLINE_MS = 5_000;

/**
 * The workflows on Temporal: the worker runs them, and the periodic sweeps on its Schedules, so this
 * process only starts and signals them and has nothing to begin.
 */
export class TemporalWorkflowEngine<Inputs> implements WorkflowEngine<Inputs, unknown> {
  readonly #client: Client;
  readonly #close: () => Promise<void>;

  /** `close` runs on stop: the connection, when the engine owns it. */
  constructor(client: Client, close: () => Promise<void> = () => Promise.resolve()) {
    this.#client = client;
    this.#close = close;
  }

  runs(): boolean {
    return true;
  }

  begin(): void {
    // Nothing runs here: the worker polls the task queue.
  }

  /**
   * Signal-with-start: starts the workflow with its first signal, or only signals it when it runs.
   * Unless the start is rerunnable, a finished workflow's id is never reused, so a redelivered event
   * never starts a second one: against a finished workflow the call is refused, and that is the answer we want.
   */
  async start<Type extends WorkflowType<Inputs>>(request: WorkflowStart<Inputs, Type>): Promise<void> {
    const client = this.#client;
    try {
      await client.withDeadline(Date.now() + CALL_DEADLINE_MS, () =>
        client.workflow.signalWithStart(request.workflowType, {
          workflowId: request.workflowId,
          taskQueue: TASK_QUEUE,
          args: [request.input],
          signal: request.signal,
          signalArgs: [...request.signalArgs],
          workflowIdReusePolicy: request.rerunnable ? WorkflowIdReusePolicy.ALLOW_DUPLICATE : WorkflowIdReusePolicy.REJECT_DUPLICATE,
        }),
      );
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }

  stop(): Promise<void> {
    return this.#close();
  }
}

/** An engine whose connection opens at its first use, so the api starts while Temporal is down (the outbox retries). */
export function connectTemporalEngine<Inputs>(settings: {
  workflowHost: string;
  workflowNamespace: string;
}): TemporalWorkflowEngine<Inputs> {
  const connection = Connection.lazy({ address: settings.workflowHost });
  return new TemporalWorkflowEngine(new Client({ connection, namespace: settings.workflowNamespace }), () => connection.close());
}
