// From a change of a Secret a Shop references (spec.secrets) to all its pods rolled: the operator
// stamps the new values' hash on the Deployments' pod templates, the Deployment controller rolls, the
// node agent reports the new pods ready and ends the old ones.
import { SECRETS_HASH_ANNOTATION } from '../../operator/src/reconcile/steps/roll-out.ts';
import { expectStatus, type TestCluster } from '../../operator/test/support/test-cluster.ts';
import type { ShopName } from './shops.ts';
import type { WaitOptions, Watched } from './watch.ts';
import { isRolledOut, type Workloads } from './workloads.ts';

/** The Secret shopManifest's databaseUrl names: every component reads it. */
const SECRET = 'shop-db';

const templateHash = (deployment: Watched): string | undefined =>
  (deployment.spec as { template?: { metadata?: { annotations?: Record<string, string> } } } | undefined)?.template?.metadata
    ?.annotations?.[SECRETS_HASH_ANNOTATION];

interface PodList {
  items: Array<{ metadata: { name: string; labels?: Record<string, string> } }>;
}

export interface SecretRoll {
  /** Secret written to every Deployment rolled out with the new template and every earlier pod gone. */
  readonly totalMs: number;
  /** Secret written to the last Deployment carrying the new hash: the operator's share. */
  readonly operatorMs: number;
  readonly deployments: number;
  readonly podsReplaced: number;
}

/** `shop` must be the only Shop in its namespace, Ready. */
export async function measureSecretRoll(
  cluster: TestCluster,
  workloads: Workloads,
  shop: ShopName,
  wait: Omit<WaitOptions, 'what'>,
): Promise<SecretRoll> {
  const { deployments } = workloads;
  const keys = [...deployments.latest.keys()].filter((key) => key.startsWith(`${shop.namespace}/${shop.name}-`));
  const before = new Map(keys.map((key) => [key, templateHash(deployments.latest.get(key) as Watched)]));
  const podsPath = `/api/v1/namespaces/${shop.namespace}/pods`;
  const workloadPods = async (): Promise<string[]> => {
    const reply = await cluster.kube<PodList>('GET', podsPath);
    expectStatus(reply, 200);
    return reply.body.items.filter((pod) => pod.metadata.labels?.['pod-template-hash'] !== undefined).map((pod) => pod.metadata.name);
  };
  const oldPods = await workloadPods();
  const rehashed = (deployment: Watched) =>
    templateHash(deployment) !== before.get(`${deployment.metadata.namespace}/${deployment.metadata.name}`);

  const startedAt = performance.now();
  const stamped = deployments.until(keys, rehashed, {
    ...wait,
    what: `the Deployments of ${shop.name} to carry a new ${SECRETS_HASH_ANNOTATION}`,
  });
  const rolled = deployments.until(keys, (deployment) => rehashed(deployment) && isRolledOut(deployment), {
    ...wait,
    what: `the Deployments of ${shop.name} rolled out`,
  });
  for (const wait of [stamped, rolled]) wait.catch(() => {}); // awaited below; a failed PUT must not leave them unhandled
  const changed = await cluster.kube('PUT', `${podsPath.replace('/pods', '/secrets')}/${SECRET}`, {
    metadata: { name: SECRET },
    stringData: { url: `postgres://rotated-${Date.now()}.example:5432/shop` },
  });
  expectStatus(changed, 200);
  const operatorDone = Math.max(...(await stamped).values());
  const rolledOut = Math.max(...(await rolled).values());
  // The Deployment controller counts no pod being deleted; the agent ends them at once, so this is short.
  const deadline = performance.now() + wait.timeoutMs;
  let left = (await workloadPods()).filter((name) => oldPods.includes(name));
  while (left.length > 0) {
    if (performance.now() > deadline)
      throw new Error(`timed out after ${wait.timeoutMs / 1000} s waiting for the old pods of ${shop.name} to go: ${left.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
    left = (await workloadPods()).filter((name) => oldPods.includes(name));
  }
  const gone = performance.now();
  return {
    totalMs: Math.max(rolledOut, gone) - startedAt,
    operatorMs: operatorDone - startedAt,
    deployments: keys.length,
    podsReplaced: oldPods.length,
  };
}
