import { sweepActivities } from './activities.ts';
import { SWEEP_BATCH, sweepUntilDone } from './sweeps.ts';

/**
 * Scheduled daily: expires return (RMA) drafts not submitted before their expiry, and returns credited
 * in advance whose goods did not arrive in time (clawing the credit back), a batch per pass.
 */
export function GcExpiredRmaDraftsWorkflow(asOf?: string): Promise<{ passes: number; processed: number }> {
  return sweepUntilDone((at) => sweepActivities.expireReturnDrafts({ asOf: at, limit: SWEEP_BATCH }), asOf);
}
