import { moneySweepActivities } from './activities.ts';
import { sweepUntilDone } from './sweeps.ts';

/** Tenders one pass voids: each waits for the gateway, so a pass stays well within its activity's timeout. */
export const VOID_BATCH = 100;

/**
 * Scheduled daily: voids the card authorizations lapsing within cardAuthorizationVoidMarginHours
 * (keyed void:<tenderId>, as a cancellation), cancelling the unfulfilled orders they paid.
 */
export function VoidExpiringCardAuthsWorkflow(asOf?: string): Promise<{ passes: number; processed: number }> {
  return sweepUntilDone((at) => moneySweepActivities.voidExpiringCardAuths({ asOf: at, limit: VOID_BATCH }), asOf);
}
