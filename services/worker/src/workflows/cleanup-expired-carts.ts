import { WORKFLOW_TYPES } from '@shop/domain/workflows';
import { sweepActivities } from './activities.ts';
import { sweepUntilDone } from './sweeps.ts';

/** Scheduled hourly: deletes ACTIVE carts left alone past their expiry, a batch per pass; a cart with a live tender waits for GcExpiredCartTenders. */
export function CleanupExpiredCartsWorkflow(asOf?: string): Promise<{ passes: number; processed: number }> {
  return sweepUntilDone(WORKFLOW_TYPES.cleanupExpiredCarts, sweepActivities.deleteExpiredCarts, asOf);
}
