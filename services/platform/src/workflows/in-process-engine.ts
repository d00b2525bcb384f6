import { randomUUID } from 'node:crypto';
import type { Logger } from '@shop/runtime';
import { PollingLoop } from '../outbox/polling-loop.ts';
import type { EngineRun, WorkflowEngine, WorkflowStart, WorkflowType } from './engine.ts';

/**
 * A workflow run in the process from start to end in one call: it has no timers and takes no signals
 * once it runs. Nothing retries a run that fails: a sweep must find what it leaves undone.
 */
export type InProcessWorkflow<Context, Input> = (context: Context, input: Input, run: EngineRun) => Promise<unknown>;

/** A periodic sweep run in the process: one pass handles up to `batch` rows due as of `asOf`. */
export interface InProcessSweep<Context> {
  /** Names the loop and, prefixed, the runs' workflow id (a Temporal Schedule's id). */
  readonly name: string;
  readonly workflowType: string;
  readonly everyMs: number;
  readonly batch: number;
  pass(
    context: Context,
    input: { readonly asOf: Date; readonly limit: number; readonly run: EngineRun },
  ): Promise<{ readonly processed: number; readonly more: boolean }>;
}

export interface InProcessEngineOptions<Inputs, Context> {
  readonly logger: Logger;
  /** The workflow types run here; a type without one is not run. */
  readonly workflows: { readonly [Type in WorkflowType<Inputs>]?: InProcessWorkflow<Context, Inputs[Type]> };
  readonly sweeps: readonly InProcessSweep<Context>[];
}

/** The prefix of an in-process run's workflow id, so its faults are told from an engine's run of the same workflow. */
const RUN_PREFIX = 'embedded-';

/**
 * The engine of a process without a workflow engine. A start only queues the workflow and resolves,
 * so an outbox delivery commits at once instead of holding its transaction open while the work
 * runs; the queued workflows then run one at a time. A workflow queued and not started yet is queued
 * once: that run reads its entity as it will be and does the later start's work too. A run that fails,
 * or one lost when the process stops, is logged and not retried here: a sweep finds what it left
 * undone. Each sweep makes a pass at start, passes back to back while one finds more, then rests one
 * interval; several processes may sweep at once, as a pass skips the rows another holds.
 */
export class InProcessWorkflowEngine<Inputs, Context> implements WorkflowEngine<Inputs, Context> {
  readonly #options: InProcessEngineOptions<Inputs, Context>;
  #context: Context | undefined;
  #stopped = false;
  #loops: PollingLoop[] = [];
  readonly #queued = new Set<string>();
  #tail: Promise<void> = Promise.resolve();

  constructor(options: InProcessEngineOptions<Inputs, Context>) {
    this.#options = options;
  }

  runs(workflowType: string): boolean {
    return Object.hasOwn(this.#options.workflows, workflowType);
  }

  begin(context: () => Context): void {
    if (this.#context !== undefined) throw new Error('the in-process workflow engine has begun already');
    const taken = (this.#context = context());
    this.#loops = this.#options.sweeps.map((sweep) => this.#loop(taken, sweep));
    for (const loop of this.#loops) loop.start();
  }

  start<Type extends WorkflowType<Inputs>>(request: WorkflowStart<Inputs, Type>): Promise<void> {
    const context = this.#context;
    const workflow: InProcessWorkflow<Context, Inputs[Type]> | undefined = this.#options.workflows[request.workflowType];
    if (workflow === undefined) return Promise.reject(new Error(`${request.workflowType} does not run in this process`));
    if (context === undefined || this.#stopped)
      return Promise.reject(new Error(`the in-process workflow engine is ${this.#stopped ? 'stopped' : 'not started yet'}`));
    if (this.#queued.has(request.workflowId)) return Promise.resolve();
    this.#queued.add(request.workflowId);
    const run: EngineRun = { workflow: request.workflowType, workflowId: `${RUN_PREFIX}${request.workflowId}`, runId: request.cause };
    this.#tail = this.#tail.then(async () => {
      this.#queued.delete(request.workflowId);
      try {
        await workflow(context, request.input, run);
      } catch (error) {
        this.#options.logger.warn(
          { err: error, workflow: run.workflow, workflow_id: run.workflowId },
          `the in-process run of ${run.workflowId} failed; it is not retried here`,
        );
      }
    });
    return Promise.resolve();
  }

  /** Resolves once the workflows queued so far have run. */
  idle(): Promise<void> {
    return this.#tail;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await Promise.all(this.#loops.map((loop) => loop.stop()));
    await this.#tail;
  }

  #loop(context: Context, sweep: InProcessSweep<Context>): PollingLoop {
    const { logger } = this.#options;
    const workflowId = `${RUN_PREFIX}${sweep.name}`;
    return new PollingLoop({
      name: sweep.name,
      idleMs: sweep.everyMs,
      maxBackoffMs: sweep.everyMs,
      logger,
      pass: async () => {
        const run: EngineRun = { workflow: sweep.workflowType, workflowId, runId: randomUUID() };
        const batch = await sweep.pass(context, { asOf: new Date(), limit: sweep.batch, run });
        if (batch.processed > 0) logger.info({ sweep: sweep.name, processed: batch.processed }, `${sweep.name}: ${batch.processed} done`);
        return batch.more;
      },
    });
  }
}
