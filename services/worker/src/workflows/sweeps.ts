import { continueAsNew, workflowInfo } from '@temporalio/workflow';
import { PERIODIC_WORKFLOWS, type SweepBatch, type SweepWorkflowType } from '@shop/domain/workflows';

/** Passes one run makes before it continues as a new run, so its history stays small. */
const PASSES_PER_RUN = 100;

/** Rows one pass of the sweep handles, as its declaration in PERIODIC_WORKFLOWS says. */
function batchOf(workflowType: SweepWorkflowType): number {
  const declared = PERIODIC_WORKFLOWS.find((periodic) => periodic.workflowType === workflowType);
  if (declared === undefined) throw new Error(`${workflowType} is not declared in PERIODIC_WORKFLOWS`);
  return declared.batch;
}

/**
 * A sweep as of the instant its run started (rows that fall due meanwhile wait for the next run):
 * passes of its declared batch until one finds nothing more, continuing as new when the history grows.
 */
export async function sweepUntilDone<T extends SweepBatch>(
  workflowType: SweepWorkflowType,
  pass: (input: { asOf: string; limit: number }) => Promise<T>,
  asOf = new Date().toISOString(),
): Promise<{ passes: number; processed: number }> {
  const limit = batchOf(workflowType);
  let processed = 0;
  for (let passes = 1; passes <= PASSES_PER_RUN; passes += 1) {
    const batch = await pass({ asOf, limit });
    processed += batch.processed;
    if (!batch.more) return { passes, processed };
    if (workflowInfo().continueAsNewSuggested) break;
  }
  return continueAsNew<(asOf?: string) => Promise<{ passes: number; processed: number }>>(asOf);
}
