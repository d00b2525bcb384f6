import type { V1Deployment, V1Job } from '@kubernetes/client-node';

export type JobOutcome =
  | { readonly state: 'running' }
  | { readonly state: 'complete' }
  | { readonly state: 'failed'; readonly reason: string; readonly message: string };

/** What the Job controller reports through the Job's Complete and Failed conditions. */
export function jobOutcome(job: V1Job): JobOutcome {
  const isTrue = (type: string) => job.status?.conditions?.find((condition) => condition.type === type && condition.status === 'True');
  const failed = isTrue('Failed');
  if (failed) return { state: 'failed', reason: failed.reason ?? 'Failed', message: failed.message ?? 'the Job failed' };
  return isTrue('Complete') ? { state: 'complete' } : { state: 'running' };
}

/** The label the Job controller puts on the pods of one Job (of that uid, not of an earlier Job of the same name). */
const CONTROLLER_UID_LABEL = 'batch.kubernetes.io/controller-uid';

/** Selects the pods of `job`. */
export function jobPodSelector(job: V1Job): string {
  const uid = job.metadata?.uid;
  if (!uid) throw new Error(`Job ${job.metadata?.name} has no uid`);
  return `${CONTROLLER_UID_LABEL}=${uid}`;
}

/** Selects the pods of `deployment` (its matchLabels: the renderer uses no expressions). */
export function deploymentPodSelector(deployment: V1Deployment): string {
  const selector = Object.entries(deployment.spec?.selector.matchLabels ?? {})
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
  // An empty selector would select every pod of the namespace.
  if (!selector) throw new Error(`Deployment ${deployment.metadata?.name} selects its pods by no label`);
  return selector;
}

export interface Rollout {
  /** Every replica runs the current template and is available. */
  readonly done: boolean;
  /** Where the rollout stands, for people. */
  readonly message: string;
}

/**
 * Whether the Deployment's current template is fully rolled out, by the same checks as
 * `kubectl rollout status`, plus the Available condition.
 */
export function deploymentRollout(deployment: V1Deployment): Rollout {
  const name = deployment.metadata?.name ?? 'Deployment';
  const generation = deployment.metadata?.generation ?? 0;
  const status = deployment.status ?? {};
  const desired = deployment.spec?.replicas ?? 1;
  const updated = status.updatedReplicas ?? 0;
  const existing = status.replicas ?? 0;
  const available = status.availableReplicas ?? 0;
  const waiting = (message: string): Rollout => ({ done: false, message: `${name}: ${message}` });
  if ((status.observedGeneration ?? 0) < generation)
    return waiting(`generation ${generation} not yet observed by the Deployment controller`);
  if (updated < desired) return waiting(`${updated} of ${desired} replicas updated`);
  if (existing > updated) return waiting(`${existing - updated} old replicas still running`);
  if (available < updated) return waiting(`${available} of ${updated} updated replicas available`);
  const condition = status.conditions?.find((candidate) => candidate.type === 'Available');
  if (condition?.status !== 'True') return waiting(`not Available${condition?.message ? `: ${condition.message}` : ''}`);
  return { done: true, message: `${name}: ${available} of ${desired} replicas available` };
}
