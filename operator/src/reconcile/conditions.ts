import type { ShopStatus } from '@shop/cdk8s';

export type Condition = NonNullable<ShopStatus['conditions']>[number];
export type ConditionStatus = Condition['status'];

/** The conditions this reconcile loop sets, in the order they are written. Others on the Shop are left alone. */
export const CONDITION_TYPES = [
  'Ready',
  'Degraded',
  'MigrationsApplied',
  'ApiAvailable',
  'WorkerAvailable',
  'ConsumerAvailable',
  'MonitoringProvisioned',
  'KeysCurrent',
] as const;
export type ConditionType = (typeof CONDITION_TYPES)[number];
/** The conditions set by the steps; Ready and Degraded sum them up. */
export type StepConditionType = Exclude<ConditionType, 'Ready' | 'Degraded'>;

export interface ConditionReport {
  readonly status: ConditionStatus;
  /** CamelCase, for machines. */
  readonly reason: string;
  readonly message: string;
}

/** The condition as reported for `generation`; lastTransitionTime moves only when the status changes. */
export function nextCondition(
  type: ConditionType,
  report: ConditionReport,
  previous: Condition | undefined,
  generation: number,
  now: Date,
): Condition {
  const lastTransitionTime = previous?.status === report.status ? previous.lastTransitionTime : kubeTime(now);
  return {
    type,
    status: report.status,
    observedGeneration: generation,
    lastTransitionTime,
    reason: report.reason,
    message: report.message,
  };
}

/** RFC 3339 in whole seconds, as Kubernetes writes metav1.Time. */
export function kubeTime(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z');
}
