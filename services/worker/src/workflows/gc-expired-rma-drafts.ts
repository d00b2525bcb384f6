import { WORKFLOW_TYPES } from '@shop/domain/workflows';
import { sweepActivities } from './activities.ts';
import { sweepUntilDone } from './sweeps.ts';

/**
 * Scheduled daily: expires return (RMA) drafts not submitted before their expiry, and returns credited
 * in advance whose goods did not arrive in time (clawing the credit back), a batch per pass.
 */
export function GcExpiredRmaDraftsWorkflow(asOf?: string): Promise<{ passes: number; processed: number }> {
  return sweepUntilDone(WORKFLOW_TYPES.gcExpiredRmaDrafts, sweepActivities.expireReturnDrafts, asOf);
}
