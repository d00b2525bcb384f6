import type { KubeObject } from '@shop/cdk8s';
import type { KubeClients } from '../kube/clients.ts';
import { KEYS_REVISION_ANNOTATION } from './key-set.ts';

/**
 * The names of the pods of these Deployments (by their selectors) that started with a keys revision
 * older than `revision` (none stamped: 0), Terminating ones included: a pod with a deletionTimestamp
 * still runs, signs tokens and writes rows with the keys it started with until it is gone. A
 * Deployment's status counts no Terminating pod, so its rollout being done does not say this.
 * Pods that ended (Succeeded or Failed) hold no keys any more.
 */
export async function olderKeyPods(
  clients: KubeClients,
  namespace: string,
  deployments: readonly KubeObject[],
  revision: number,
): Promise<string[]> {
  const older: string[] = [];
  for (const deployment of deployments) {
    const { selector } = deployment.spec as { selector: { matchLabels: Record<string, string> } };
    const labelSelector = Object.entries(selector.matchLabels)
      .map(([key, value]) => `${key}=${value}`)
      .join(',');
    const pods = await clients.core.listNamespacedPod({ namespace, labelSelector });
    for (const pod of pods.items) {
      if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') continue;
      if (Number(pod.metadata?.annotations?.[KEYS_REVISION_ANNOTATION] ?? '0') < revision) older.push(pod.metadata?.name ?? '(unnamed)');
    }
  }
  return older.sort();
}
