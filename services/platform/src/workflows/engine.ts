/**
 * Where a process's workflows run: on a workflow engine (Temporal, the worker's), or in the process
 * itself. The api starts workflows and runs the periodic sweeps behind this port, whichever
 * configuration chose. `Inputs` maps each workflow type to its input; `Context` is what the workflows
 * and sweeps an engine runs in-process need once the process can do work (its outbox open).
 */
export interface WorkflowEngine<Inputs, Context> {
  /** Whether `start` runs workflows of this type: nothing needs to start those of another. */
  runs(workflowType: string): boolean;
  /**
   * Takes work from now on: the in-process engine starts its sweeps and runs the workflows handed to it
   * with `context()`; an engine whose workflows and sweeps run elsewhere does not call it.
   */
  begin(context: () => Context): void;
  /** Resolves once the engine holds the request: recorded by the engine, or queued in the process. */
  start<Type extends WorkflowType<Inputs>>(request: WorkflowStart<Inputs, Type>): Promise<void>;
  /** Takes no more work, and resolves once what runs in this process has finished. */
  stop(): Promise<void>;
}

export type WorkflowType<Inputs> = keyof Inputs & string;

/** A workflow to start under its id, with its first signal; one already running under the id is only signalled. */
export interface WorkflowStart<Inputs, Type extends WorkflowType<Inputs>> {
  readonly workflowType: Type;
  /** Derived from the entity, so a start asked for twice (a redelivered event) finds the workflow instead of starting a second one. */
  readonly workflowId: string;
  readonly input: Inputs[Type];
  readonly signal: string;
  readonly signalArgs: readonly unknown[];
  /** Whether a workflow that ended may run again under its id; when not, a start after its end is dropped. */
  readonly rerunnable: boolean;
  /** What asked for the start (an event's id): an in-process run is named after it, so a redelivery records a fault once. */
  readonly cause: string;
}

/** One run of a workflow or of a sweep's pass, as the workflow faults it records name it. */
export interface EngineRun {
  readonly workflow: string;
  readonly workflowId: string;
  readonly runId: string;
}
