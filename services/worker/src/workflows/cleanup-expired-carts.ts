import { sweepActivities } from './activities.ts';
import { SWEEP_BATCH, sweepUntilDone } from './sweeps.ts';

/** Scheduled hourly: deletes ACTIVE carts left alone past their expiry, a batch per pass; a cart with a live tender waits for GcExpiredCartTenders. */
export function CleanupExpiredCartsWorkflow(asOf?: string): Promise<{ passes: number; processed: number }> {
  return sweepUntilDone((at) => sweepActivities.deleteExpiredCarts({ asOf: at, limit: SWEEP_BATCH }), asOf);
}
