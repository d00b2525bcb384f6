import { PatchStrategy, type V1Job } from '@kubernetes/client-node';
import { parseRewrapSummary, type RewrapSummary } from '@shop/runtime';
import type { KubeClients } from '../kube/clients.ts';
import { FIELD_MANAGER } from '../kube/ownership.ts';
import { jobPodSelector } from '../kube/workload-state.ts';

/** On a finished rewrap Job: the count its pods made, kept with the Job so that it outlives them. */
export const ROWS_COUNTED_ANNOTATION = 'shop.dev/rows-counted';

/**
 * The rows per master key id a finished rewrap Job counted at its end, from the termination message
 * its command writes (REWRAP_COMMAND): the operator has no database access of its own. The latest
 * count among the Job's pods, recorded on the Job (ROWS_COUNTED_ANNOTATION) the first time it is
 * read, so that the pods are listed once and not at every pass. Undefined when none ended with one
 * (they are gone, or died before writing it).
 */
export async function rewrapCount(clients: KubeClients, job: V1Job): Promise<RewrapSummary | undefined> {
  const { name, namespace, annotations } = job.metadata ?? {};
  if (!name || !namespace) throw new Error(`Job ${name} has no namespace`);
  const recorded = parseRewrapSummary(annotations?.[ROWS_COUNTED_ANNOTATION] ?? '');
  if (recorded) return recorded;
  const pods = await clients.core.listNamespacedPod({ namespace, labelSelector: jobPodSelector(job) });
  const latest = pods.items
    .flatMap((pod) => pod.status?.containerStatuses ?? [])
    .map((container) => parseRewrapSummary(container.state?.terminated?.message ?? ''))
    .filter((count) => count !== undefined)
    .sort((a, b) => Date.parse(b.countedAt) - Date.parse(a.countedAt))[0];
  if (latest) {
    // A merge patch, not the apply that created the Job: the annotation is not part of what the operator renders.
    const annotations = { [ROWS_COUNTED_ANNOTATION]: JSON.stringify(latest) };
    await clients.objects.patch(
      { apiVersion: 'batch/v1', kind: 'Job', metadata: { name, namespace, annotations } },
      undefined,
      undefined,
      FIELD_MANAGER,
      undefined,
      PatchStrategy.MergePatch,
    );
  }
  return latest;
}
