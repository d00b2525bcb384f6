/**
 * Flows are written as named steps. A step with an effect outside the database (the payment gateway)
 * may name a compensation: when a later step fails, the compensations of the steps that completed
 * run newest first, each told the failure, and then the failure goes on to the caller. A
 * compensation decides for itself whether the failure calls for undoing (a card authorization kept
 * for the shopper's retry is not voided) and must be safe to run twice: every effect it undoes is
 * keyed. A compensation that fails ends the undoing: the caller gets both failures, named by the step.
 */
export interface FlowSteps {
  /** Runs `run` as the step `name`; `compensate` is called with its result if a later step fails. */
  step<T>(name: string, run: () => Promise<T>, compensate?: (result: T, failure: unknown) => Promise<void>): Promise<T>;
}

export async function runFlow<T>(body: (steps: FlowSteps) => Promise<T>): Promise<T> {
  const compensations: { name: string; undo: (failure: unknown) => Promise<void> }[] = [];
  const steps: FlowSteps = {
    async step(name, run, compensate) {
      const result = await run();
      if (compensate !== undefined) compensations.push({ name, undo: (failure) => compensate(result, failure) });
      return result;
    },
  };
  try {
    return await body(steps);
  } catch (failure) {
    for (const { name, undo } of compensations.reverse()) {
      try {
        await undo(failure);
      } catch (undoFailure) {
        throw new AggregateError([failure, undoFailure], `undoing the step "${name}" failed after the flow failed`);
      }
    }
    throw failure;
  }
}
