import { defineQuery, defineSignal } from '@temporalio/workflow';
import { QUERIES, SIGNALS } from '@shop/domain/workflows';

/** The payload of a signal is a record of the change; workflows re-read their entity rather than trust it. */
export const orderStatusChanged = defineSignal<[{ to: string }]>(SIGNALS.orderStatusChanged);
export const customerApprovalChanged = defineSignal<[{ approvalStatus: string }]>(SIGNALS.customerApprovalChanged);
export const refundRequested = defineSignal<[]>(SIGNALS.refundRequested);

export interface WorkflowState {
  readonly status: string | null;
  /** The instant the workflow's current timer fires (ISO), null while it waits for a signal only. */
  readonly deadline: string | null;
}

export const stateQuery = defineQuery<WorkflowState>(QUERIES.state);

/** Counts nudges; `since(mark)` tells whether one arrived after the mark was taken. */
export class Nudges {
  #count = 0;

  nudge(): void {
    this.#count += 1;
  }

  mark(): number {
    return this.#count;
  }

  since(mark: number): () => boolean {
    return () => this.#count !== mark;
  }
}
