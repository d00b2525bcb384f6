import { sweepActivities } from './activities.ts';
import { SWEEP_BATCH, sweepUntilDone } from './sweeps.ts';

/** Scheduled daily: expires return (RMA) drafts not submitted before their expiry, a batch per pass. */
export function GcExpiredRmaDraftsWorkflow(asOf?: string): Promise<{ passes: number; processed: number }> {
  return sweepUntilDone((at) => sweepActivities.expireReturnDrafts({ asOf: at, limit: SWEEP_BATCH }), asOf);
}
