import { WORKFLOW_TYPES } from '@shop/domain/workflows';
import { moneySweepActivities } from './activities.ts';
import { sweepUntilDone } from './sweeps.ts';

/**
 * Scheduled every 15 minutes: voids the cart tenders (cards authorized for a cart before its order)
 * that no order took before their hold ran out (cartTenderIdleMinutes), keyed void:<tenderId>.
 */
export function GcExpiredCartTendersWorkflow(asOf?: string): Promise<{ passes: number; processed: number }> {
  return sweepUntilDone(WORKFLOW_TYPES.gcExpiredCartTenders, moneySweepActivities.voidIdleCartTenders, asOf);
}
