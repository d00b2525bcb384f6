import { continueAsNew, workflowInfo } from '@temporalio/workflow';
import type { SweepBatch } from '@shop/domain/workflows';

/** Rows one pass handles in one transaction. */
export const SWEEP_BATCH = 500;
/** Passes one run makes before it continues as a new run, so its history stays small. */
const PASSES_PER_RUN = 100;

/**
 * A sweep as of the instant its run started (rows that fall due meanwhile wait for the next run):
 * passes until one finds nothing more, continuing as new when the history grows.
 */
export async function sweepUntilDone<T extends SweepBatch>(pass: (asOf: string) => Promise<T>, asOf = new Date().toISOString()): Promise<{ passes: number; processed: number }> {
  let processed = 0;
  for (let passes = 1; passes <= PASSES_PER_RUN; passes += 1) {
    const batch = await pass(asOf);
    processed += batch.processed;
    if (!batch.more) return { passes, processed };
    if (workflowInfo().continueAsNewSuggested) break;
  }
  return continueAsNew<(asOf?: string) => Promise<{ passes: number; processed: number }>>(asOf);
}
