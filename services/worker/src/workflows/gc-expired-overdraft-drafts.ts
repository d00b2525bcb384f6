import { sweepActivities } from './activities.ts';
import { SWEEP_BATCH, sweepUntilDone } from './sweeps.ts';

/** Scheduled hourly: expires store credit overdraft drafts past their expiry, a batch per pass. */
export function GcExpiredOverdraftDraftsWorkflow(asOf?: string): Promise<{ passes: number; processed: number }> {
  return sweepUntilDone((at) => sweepActivities.expireOverdraftDrafts({ asOf: at, limit: SWEEP_BATCH }), asOf);
}
