import { WORKFLOW_TYPES } from '@shop/domain/workflows';
import { moneySweepActivities } from './activities.ts';
import { sweepUntilDone } from './sweeps.ts';

/**
 * Scheduled daily: voids the card authorizations lapsing within cardAuthorizationVoidMarginHours
 * (keyed void:<tenderId>, as a cancellation), cancelling the unfulfilled orders they paid.
 */
export function VoidExpiringCardAuthsWorkflow(asOf?: string): Promise<{ passes: number; processed: number }> {
  return sweepUntilDone(WORKFLOW_TYPES.voidExpiringCardAuths, moneySweepActivities.voidExpiringCardAuths, asOf);
}
