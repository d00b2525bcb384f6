// Requests for the chart tests' API server, on top of test/infra/kube-client.ts.
import type { KubeRequest } from '../../../test/infra/kube-client.ts';
import type { RenderedObject } from './helm.ts';

/** The plural and scope of every kind the charts render. */
const RESOURCES: Record<string, { plural: string; namespaced: boolean }> = {
  ClusterRole: { plural: 'clusterroles', namespaced: false },
  ClusterRoleBinding: { plural: 'clusterrolebindings', namespaced: false },
  ConfigMap: { plural: 'configmaps', namespaced: true },
  CustomResourceDefinition: { plural: 'customresourcedefinitions', namespaced: false },
  Deployment: { plural: 'deployments', namespaced: true },
  Namespace: { plural: 'namespaces', namespaced: false },
  Pod: { plural: 'pods', namespaced: true },
  PodDisruptionBudget: { plural: 'poddisruptionbudgets', namespaced: true },
  PrometheusRule: { plural: 'prometheusrules', namespaced: true },
  Role: { plural: 'roles', namespaced: true },
  RoleBinding: { plural: 'rolebindings', namespaced: true },
  Secret: { plural: 'secrets', namespaced: true },
  Service: { plural: 'services', namespaced: true },
  ServiceAccount: { plural: 'serviceaccounts', namespaced: true },
  ServiceMonitor: { plural: 'servicemonitors', namespaced: true },
  Shop: { plural: 'shops', namespaced: true },
};

/** The collection an object is created in, e.g. /apis/apps/v1/namespaces/shops/deployments. */
export function collectionPath(object: Pick<RenderedObject, 'apiVersion' | 'kind' | 'metadata'>): string {
  const resource = RESOURCES[object.kind];
  if (!resource) throw new Error(`no resource known for kind ${object.kind}`);
  const group = object.apiVersion.includes('/') ? `/apis/${object.apiVersion}` : `/api/${object.apiVersion}`;
  if (!resource.namespaced) return `${group}/${resource.plural}`;
  if (!object.metadata.namespace) throw new Error(`${object.kind} ${object.metadata.name} has no namespace`);
  return `${group}/namespaces/${object.metadata.namespace}/${resource.plural}`;
}

/** Creates the object, or with `dryRun` only validates it as the API server would store it. */
export function create(kube: KubeRequest, object: Pick<RenderedObject, 'apiVersion' | 'kind' | 'metadata'>, { dryRun = false } = {}) {
  return kube<{ message?: string }>('POST', `${collectionPath(object)}?fieldValidation=Strict${dryRun ? '&dryRun=All' : ''}`, object);
}

export async function createNamespace(kube: KubeRequest, name: string, labels: Record<string, string> = {}): Promise<void> {
  const reply = await create(kube, { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
  if (reply.status !== 201) throw new Error(`namespace ${name}: HTTP ${reply.status}: ${JSON.stringify(reply.body)}`);
}
