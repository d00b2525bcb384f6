import { WORKFLOW_TYPES } from '@shop/domain/workflows';
import { sweepActivities } from './activities.ts';
import { sweepUntilDone } from './sweeps.ts';

/**
 * Scheduled every minute: releases every HELD reservation past its expiry, a batch of orders per
 * pass, and cancels the unpaid orders they held stock for.
 */
export function ExpireStaleReservationsWorkflow(asOf?: string): Promise<{ passes: number; processed: number }> {
  return sweepUntilDone(WORKFLOW_TYPES.expireStaleReservations, sweepActivities.expireStaleReservations, asOf);
}
