import type { V1Job } from '@kubernetes/client-node';
import type { ShopStatus } from '@shop/cdk8s';
import { parseRewrapSummary, type RewrapSummary } from '@shop/runtime';
import type { KubeClients } from '../kube/clients.ts';
import { jobPodSelector } from '../kube/workload-state.ts';

type KeyRotationStatus = NonNullable<ShopStatus['keyRotation']>;

/**
 * The rows per master key id a finished rewrap Job counted at its end, from the termination message
 * its command writes (REWRAP_COMMAND): the operator has no database access of its own. When `status`
 * (the Shop's status.keyRotation) already holds a count made after the Job was created, that one:
 * the Job's pods are listed once, not at every pass, and the count outlives them. Otherwise the
 * latest count among the Job's pods; undefined when none ended with one (they are gone, or died
 * before writing it).
 */
export async function rewrapCount(clients: KubeClients, job: V1Job, status?: KeyRotationStatus): Promise<RewrapSummary | undefined> {
  const { namespace, creationTimestamp } = job.metadata ?? {};
  if (!namespace) throw new Error(`Job ${job.metadata?.name} has no namespace`);
  const { rowsPerKeyId, rowsCountedAt } = status ?? {};
  if (rowsPerKeyId && rowsCountedAt && creationTimestamp && Date.parse(rowsCountedAt) >= new Date(creationTimestamp).getTime()) {
    return { countedAt: rowsCountedAt, rowsPerKeyId };
  }
  const pods = await clients.core.listNamespacedPod({ namespace, labelSelector: jobPodSelector(job) });
  const counts = pods.items
    .flatMap((pod) => pod.status?.containerStatuses ?? [])
    .map((container) => parseRewrapSummary(container.state?.terminated?.message ?? ''))
    .filter((count) => count !== undefined);
  return counts.sort((a, b) => Date.parse(b.countedAt) - Date.parse(a.countedAt))[0];
}
