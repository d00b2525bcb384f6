import { WORKFLOW_TYPES } from '@shop/domain/workflows';
import { sweepActivities } from './activities.ts';
import { sweepUntilDone } from './sweeps.ts';

/** Scheduled hourly: expires store credit overdraft drafts past their expiry, a batch per pass. */
export function GcExpiredOverdraftDraftsWorkflow(asOf?: string): Promise<{ passes: number; processed: number }> {
  return sweepUntilDone(WORKFLOW_TYPES.gcExpiredOverdraftDrafts, sweepActivities.expireOverdraftDrafts, asOf);
}
