import type { KubernetesListObject, KubernetesObject, V1Deployment, V1Job, V1PodTemplateSpec, V1ReplicaSet } from '@kubernetes/client-node';
import { manifestList } from '@shop/cdk8s';
import { deleteStored } from '../../kube/apply.ts';
import { INSTANCE_LABEL, isOwnedBy, ownedSelector } from '../../kube/ownership.ts';
import { jobOutcome } from '../../kube/workload-state.ts';
import { MONITORING_API_VERSION } from '../../monitoring/prometheus-rule.ts';
import type { Pass, ReconcileStep } from '../pass.ts';

interface Kind {
  readonly apiVersion: string;
  readonly kind: string;
}

/** Every kind the operator renders or provisions for a Shop (Secrets are never owned: the generated keys outlive the Shop). */
const BUILT_IN_KINDS: readonly Kind[] = [
  { apiVersion: 'v1', kind: 'ConfigMap' },
  { apiVersion: 'v1', kind: 'Service' },
  { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget' },
  { apiVersion: 'apps/v1', kind: 'Deployment' },
  { apiVersion: 'batch/v1', kind: 'Job' },
  { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' },
  { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy' },
];
/** The Prometheus Operator's kinds, listed only where the cluster serves them. */
const MONITORING_KINDS = ['PrometheusRule', 'PodMonitor'];

const COMPONENT_LABEL = 'app.kubernetes.io/component';

/**
 * Deletes what this Shop owns (by ownerReference uid) and no longer renders: a turned-off monitoring
 * part, a component removed from the renderer, a ConfigMap of an earlier config once no live workload
 * names it, and Jobs beyond the newest `jobHistoryLimit` of their component. Objects with the Shop's
 * labels that another owner (or none) holds are never touched.
 *
 * Last, so that every step has said what it uses (pass.provisioned), and so that passes halted in a
 * migration or rollout, the frequent ones, leave everything in place until the Shop is Ready again.
 */
export const prune: ReconcileStep = {
  name: 'prune',
  conditions: [],
  async run(pass) {
    const owned = await listOwned(pass);
    const kept = new Set([...manifestList(pass.manifests), ...pass.provisioned].map(kindAndName));
    const named = configMapsInUse(owned, await liveReplicaSets(pass, owned));
    const jobsKept = newestJobs(owned.filter((object) => object.kind === 'Job') as V1Job[], pass.jobHistoryLimit);
    for (const object of owned) {
      if (kept.has(kindAndName(object))) continue;
      if (object.kind === 'ConfigMap' && named.has(object.metadata?.name ?? '')) continue;
      if (object.kind === 'Job' && jobsKept.has(object)) continue;
      await deleteStored(pass.clients.objects, object);
    }
    return undefined;
  },
};

const kindAndName = (object: { readonly kind?: string; readonly metadata?: { readonly name?: string } }): string =>
  `${object.kind}/${object.metadata?.name}`;

/** The objects of every prunable kind that carry the Shop's labels and are owned by this Shop, with their kind set. */
async function listOwned({ shop, clients, servedMonitoringKinds }: Pass): Promise<KubernetesObject[]> {
  const served = await servedMonitoringKinds();
  const kinds = [
    ...BUILT_IN_KINDS,
    ...MONITORING_KINDS.filter((kind) => served.has(kind)).map((kind) => ({ apiVersion: MONITORING_API_VERSION, kind })),
  ];
  const lists = await Promise.all(
    kinds.map(async ({ apiVersion, kind }) => {
      const list = (await clients.objects.list(
        apiVersion,
        kind,
        shop.metadata.namespace,
        undefined,
        undefined,
        undefined,
        undefined,
        ownedSelector(shop),
      )) as KubernetesListObject<KubernetesObject>;
      // A list's items carry no apiVersion and kind.
      return list.items.map((item) => ({ ...item, apiVersion, kind }));
    }),
  );
  return lists.flat().filter((object) => isOwnedBy(shop, object));
}

/**
 * The ReplicaSets of the Shop's Deployments that still run or are to run pods. The Deployment
 * controller labels them with the pod template's labels, which carry the Shop's instance label.
 */
async function liveReplicaSets({ shop, clients }: Pass, owned: readonly KubernetesObject[]): Promise<V1ReplicaSet[]> {
  const deployments = new Set(owned.filter((object) => object.kind === 'Deployment').map((deployment) => deployment.metadata?.uid));
  const selector = `${INSTANCE_LABEL}=${shop.metadata.name}`;
  const list = (await clients.objects.list(
    'apps/v1',
    'ReplicaSet',
    shop.metadata.namespace,
    undefined,
    undefined,
    undefined,
    undefined,
    selector,
  )) as KubernetesListObject<V1ReplicaSet>;
  return list.items.filter(
    (replicaSet) =>
      replicaSet.metadata?.ownerReferences?.some((reference) => deployments.has(reference.uid)) === true &&
      ((replicaSet.spec?.replicas ?? 1) > 0 || (replicaSet.status?.replicas ?? 0) > 0),
  );
}

/**
 * The ConfigMaps a pod may still start with: named by a Deployment's template, a live ReplicaSet's
 * (an old version mid-rollout), or an unfinished Job's (a retried migration pod keeps its config).
 */
function configMapsInUse(owned: readonly KubernetesObject[], replicaSets: readonly V1ReplicaSet[]): Set<string> {
  const templates: Array<V1PodTemplateSpec | undefined> = [
    ...owned.filter((object) => object.kind === 'Deployment').map((deployment) => (deployment as V1Deployment).spec?.template),
    ...owned
      .filter((object) => object.kind === 'Job' && jobOutcome(object as V1Job).state === 'running')
      .map((job) => (job as V1Job).spec?.template),
    ...replicaSets.map((replicaSet) => replicaSet.spec?.template),
  ];
  // envFrom is how the renderer hands a ConfigMap to a container.
  const containers = templates.flatMap((template) => template?.spec?.containers ?? []);
  return new Set(containers.flatMap((container) => container.envFrom ?? []).flatMap((source) => source.configMapRef?.name ?? []));
}

/**
 * Per component (migrations, key rewrap), the newest `limit` Jobs, and every Job still running: a
 * running one is not history yet, and deleting it would stop its pod.
 */
function newestJobs(jobs: readonly V1Job[], limit: number): Set<KubernetesObject> {
  const byComponent = Map.groupBy(jobs, (job) => job.metadata?.labels?.[COMPONENT_LABEL] ?? '');
  const kept = new Set<KubernetesObject>(jobs.filter((job) => jobOutcome(job).state === 'running'));
  for (const group of byComponent.values()) {
    const newestFirst = group.toSorted((a, b) => created(b) - created(a) || (b.metadata?.name ?? '').localeCompare(a.metadata?.name ?? ''));
    for (const job of newestFirst.slice(0, limit)) kept.add(job);
  }
  return kept;
}

// A Date when client-node knew the list's type, else the API server's string.
const created = (job: V1Job): number => new Date(job.metadata?.creationTimestamp ?? 0).getTime();
