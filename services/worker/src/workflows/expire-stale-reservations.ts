import { sweepActivities } from './activities.ts';
import { SWEEP_BATCH, sweepUntilDone } from './sweeps.ts';

/**
 * Scheduled every minute: releases every HELD reservation past its expiry, a batch of orders per
 * pass, and cancels the unpaid orders they held stock for.
 */
export function ExpireStaleReservationsWorkflow(asOf?: string): Promise<{ passes: number; processed: number }> {
  return sweepUntilDone((at) => sweepActivities.expireStaleReservations({ asOf: at, limit: SWEEP_BATCH }), asOf);
}
