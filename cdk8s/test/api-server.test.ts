import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubeApiServer, type KubeApiServer } from '../../test/infra/kubernetes.ts';
import { kubeClient, type KubeRequest } from '../../test/infra/kube-client.ts';
import { manifestList, renderShop, type KubeObject, type Shop } from '../src/index.ts';
import { readShopFile } from '../src/shop-file.ts';
import { minimalShop, workload } from './support/shops.ts';

const NAMESPACE = 'cdk8s-dry-run';
const COLLECTIONS: Record<string, string> = {
  'v1/ConfigMap': 'configmaps',
  'v1/Service': 'services',
  'v1/Pod': 'pods',
  'apps/v1/Deployment': 'deployments',
  'batch/v1/Job': 'jobs',
  'policy/v1/PodDisruptionBudget': 'poddisruptionbudgets',
  'autoscaling/v2/HorizontalPodAutoscaler': 'horizontalpodautoscalers',
  'networking.k8s.io/v1/NetworkPolicy': 'networkpolicies',
};

function collectionOf(object: KubeObject): string {
  const plural = COLLECTIONS[`${object.apiVersion}/${object.kind}`];
  if (!plural) throw new Error(`no collection known for ${object.apiVersion} ${object.kind}`);
  const prefix = object.apiVersion.includes('/') ? `/apis/${object.apiVersion}` : `/api/${object.apiVersion}`;
  return `${prefix}/namespaces/${NAMESPACE}/${plural}`;
}

const inNamespace = (shop: Shop): Shop => ({ ...shop, metadata: { ...shop.metadata, namespace: NAMESPACE } });

describe('the rendered objects on a real API server (server-side dry run, strict field validation)', () => {
  let server: KubeApiServer;
  let kube: KubeRequest;
  const dryRun = (object: KubeObject) =>
    kube<{ message?: string }>('POST', `${collectionOf(object)}?dryRun=All&fieldValidation=Strict`, object);

  beforeAll(async () => {
    server = await startKubeApiServer();
    kube = kubeClient(server);
    // Pods that break the "restricted" Pod Security Standard are refused in this namespace.
    const labels = { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/enforce-version': 'latest' };
    expect(
      (await kube('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE, labels } })).status,
    ).toBe(201);
  }, 180_000);

  afterAll(async () => {
    await server?.dispose();
  });

  const shops: Array<[string, () => Promise<Shop>]> = [
    ['the example Shop', () => readShopFile(fileURLToPath(new URL('../examples/shop.yaml', import.meta.url)))],
    ['a minimal Shop', async () => minimalShop()],
    [
      'a Shop with the longest name and a long, odd tag',
      async () =>
        minimalShop((shop) =>
          Object.assign(shop, {
            metadata: { name: 'a'.repeat(54) },
            spec: { ...shop.spec, image: { ...shop.spec.image, tag: `_Build.${'x'.repeat(120)}.` } },
          }),
        ),
    ],
  ];

  for (const [what, load] of shops) {
    it(`accepts every object of ${what}`, async () => {
      for (const object of manifestList(renderShop(inNamespace(await load())))) {
        const reply = await dryRun(object);
        expect({ object: `${object.kind}/${object.metadata.name}`, status: reply.status, message: reply.body.message }).toEqual({
          object: `${object.kind}/${object.metadata.name}`,
          status: 201,
          message: undefined,
        });
      }
    });
  }

  it('admits a pod of every pod template under the restricted Pod Security Standard', async () => {
    const manifests = renderShop(inNamespace(minimalShop()));
    for (const owner of [manifests.migrationJob, manifests.api.deployment, manifests.worker.deployment, manifests.consumer.deployment]) {
      const template = workload(owner).spec.template;
      const pod: KubeObject = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `${owner.metadata.name}-pod`, namespace: NAMESPACE, labels: template.metadata.labels },
        spec: template.spec,
      };
      const reply = await dryRun(pod);
      expect({ pod: pod.metadata.name, status: reply.status, message: reply.body.message }).toEqual({
        pod: pod.metadata.name,
        status: 201,
        message: undefined,
      });
    }
  });

  it('refuses, in the same namespace, a pod without the security settings (the check above can fail)', async () => {
    const template = workload(renderShop(inNamespace(minimalShop())).api.deployment).spec.template;
    const [container] = template.spec.containers;
    const pod: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'unconfined', namespace: NAMESPACE },
      spec: { ...template.spec, securityContext: {}, containers: [{ ...container, securityContext: {} }] },
    };
    const reply = await dryRun(pod);
    expect(reply.status).toBe(403);
    expect(reply.body.message).toMatch(/violates PodSecurity "restricted:latest"/);
  });
});
