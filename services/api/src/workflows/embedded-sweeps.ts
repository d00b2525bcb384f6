import { randomUUID } from 'node:crypto';
import { PollingLoop, type Logger } from '@shop/platform';
import { restartStrandedRefundsPass, SWEEP_PASSES, type SweepPass, type SweepPassDeps } from '@shop/domain/flows';
import { PERIODIC_WORKFLOWS, WORKFLOW_TYPES, type SweepWorkflowType } from '@shop/domain/workflows';

const BATCH = 500;

/** The worker's passes, but for the reconciliation: without an engine nothing captures, so only stranded refund requests are run again. */
const EMBEDDED_PASSES: Readonly<Record<SweepWorkflowType, SweepPass>> = { ...SWEEP_PASSES, [WORKFLOW_TYPES.reconcileStrandedMoney]: restartStrandedRefundsPass };

/**
 * Without a workflow engine the api runs the periodic sweeps itself, on their schedules and with the
 * same passes the worker's activities run: a pass at start, passes back to back while one finds more,
 * then one interval of rest. Several api processes may sweep at once: a pass skips the rows another holds.
 */
export function startEmbeddedSweeps(deps: SweepPassDeps & { logger: Logger }): { stop(): Promise<void> } {
  const loops = PERIODIC_WORKFLOWS.map((periodic) => {
    const pass = EMBEDDED_PASSES[periodic.workflowType];
    const workflowId = `embedded-${periodic.scheduleId}`;
    return new PollingLoop({
      name: periodic.scheduleId,
      idleMs: periodic.everyMs,
      maxBackoffMs: periodic.everyMs,
      logger: deps.logger,
      pass: async () => {
        const run = { workflow: periodic.workflowType, workflowId, runId: randomUUID() };
        const batch = await pass(deps, { asOf: new Date(), limit: BATCH, run });
        if (batch.processed > 0) deps.logger.info({ sweep: periodic.scheduleId, processed: batch.processed }, `${periodic.scheduleId}: ${batch.processed} done`);
        return batch.more;
      },
    });
  });
  for (const loop of loops) loop.start();
  return { stop: async () => void (await Promise.all(loops.map((loop) => loop.stop()))) };
}
