import { WORKFLOW_TYPES } from '@shop/domain/workflows';
import { sweepActivities } from './activities.ts';
import { sweepUntilDone } from './sweeps.ts';

/**
 * Scheduled every 15 minutes: hands back to their workflows what a parked event left stranded (the
 * engine down longer than the outbox's retries): refund requests still REQUESTED, and fulfilled
 * orders whose card is still only authorized, each once STRANDED_AFTER_MINUTES past its last change.
 * It emits their events again; the api's listeners start or signal the workflows, idempotently.
 */
export function ReconcileStrandedMoneyWorkflow(asOf?: string): Promise<{ passes: number; processed: number }> {
  return sweepUntilDone(WORKFLOW_TYPES.reconcileStrandedMoney, sweepActivities.restartStrandedMoney, asOf);
}
