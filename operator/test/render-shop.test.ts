// The operator with the real renderer (as main.ts runs it): what @shop/cdk8s renders reaches the API
// server intact through server-side apply, and the rollout order holds for the real objects.
import { renderShop, type KubeObject, type Shop } from '@shop/cdk8s';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningOperator } from '../src/operator.ts';
import { eventually } from '../../test/support/wait.ts';
import { completeJob, markDeploymentAvailable } from '../../test/infra/workloads.ts';
import { runOperator } from './support/run-operator.ts';
import { createReferencedSecrets, createShop, readShop, shopManifest, updateShop } from './support/shops.ts';
import { expectStatus, startTestCluster, type TestCluster } from './support/test-cluster.ts';

let cluster: TestCluster;
let operator: RunningOperator;

beforeAll(async () => {
  cluster = await startTestCluster();
  operator = await runOperator(cluster, { render: renderShop });
}, 180_000);

afterAll(async () => {
  await operator?.stop();
  await cluster?.dispose();
});

const pathOf = (object: KubeObject, plural: string) => {
  const group = object.apiVersion.includes('/') ? `/apis/${object.apiVersion}` : `/api/${object.apiVersion}`;
  return `${group}/namespaces/${object.metadata.namespace}/${plural}/${object.metadata.name}`;
};

async function stored(object: KubeObject, plural: string): Promise<Record<string, unknown>> {
  return eventually(async () => {
    const reply = await cluster.kube<Record<string, unknown>>('GET', pathOf(object, plural));
    expect(reply.status).toBe(200);
    return reply.body;
  });
}

/** Adds `labels` to the node agent's Node (the only one), which the agent keeps updating: hence the retry on a conflict. */
async function labelNode(labels: Record<string, string>): Promise<void> {
  await eventually(async () => {
    type Node = { metadata: { name: string; labels?: Record<string, string> } };
    const [node] = (await cluster.kube<{ items: Node[] }>('GET', '/api/v1/nodes')).body.items;
    if (!node) throw new Error('the cluster has no Node');
    expectStatus(
      await cluster.kube('PUT', `/api/v1/nodes/${node.metadata.name}`, {
        ...node,
        metadata: { ...node.metadata, labels: { ...node.metadata.labels, ...labels } },
      }),
      200,
    );
  });
}

describe('the operator with renderShop', () => {
  it('applies the rendered objects unchanged, pod settings included, in rollout order, up to Ready', async () => {
    const ns = await cluster.namespace('rendered');
    await createReferencedSecrets(cluster.kube, ns);
    // Admission refuses a pod whose PriorityClass or ServiceAccount does not exist.
    expectStatus(
      await cluster.kube('POST', '/apis/scheduling.k8s.io/v1/priorityclasses', { metadata: { name: 'shop-normal' }, value: 1000 }),
      201,
    );
    expectStatus(await cluster.kube('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: 'shop' } }), 201);
    // The scheduler places the pods only on a Node of the pool their nodeSelector names.
    await labelNode({ pool: 'shop' });
    const shop: Shop = shopManifest('shop', '1.4.0', {
      config: { LOG_LEVEL: 'DEBUG' },
      podDefaults: {
        imagePullSecrets: [{ name: 'registry' }],
        serviceAccountName: 'shop',
        nodeSelector: { pool: 'shop' },
        tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'shop', effect: 'NoSchedule' }],
        priorityClassName: 'shop-normal',
      },
      networkPolicy: {
        enabled: true,
        apiFrom: [
          {
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress' } },
            podSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['ingress'] }] },
          },
        ],
        metricsFrom: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }],
      },
      api: {
        affinity: {
          podAntiAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              {
                weight: 100,
                podAffinityTerm: {
                  topologyKey: 'kubernetes.io/hostname',
                  labelSelector: { matchLabels: { 'app.kubernetes.io/component': 'api' } },
                },
              },
            ],
          },
        },
        topologySpreadConstraints: [
          {
            maxSkew: 1,
            topologyKey: 'topology.kubernetes.io/zone',
            whenUnsatisfiable: 'ScheduleAnyway',
            labelSelector: { matchLabels: { 'app.kubernetes.io/component': 'api' } },
          },
        ],
      },
    });
    await createShop(cluster.kube, ns, shop);
    const rendered = renderShop({ ...shop, metadata: { ...shop.metadata, namespace: ns } });

    const job = await stored(rendered.migrationJob, 'jobs');
    // Every rendered field survives (the client's serializer drops fields it does not know).
    expect(job).toMatchObject({ spec: rendered.migrationJob.spec });
    expect(await stored(rendered.configMap, 'configmaps')).toMatchObject({ data: rendered.configMap.data });
    for (const policy of Object.values(rendered.networkPolicies ?? {}))
      expect(await stored(policy, 'networkpolicies')).toMatchObject({ spec: policy.spec });
    expect(Object.keys(rendered.networkPolicies ?? {})).toHaveLength(4);
    expect((await cluster.kube('GET', pathOf(rendered.api.deployment, 'deployments'))).status).toBe(404);

    await completeJob(cluster.kube, ns, rendered.migrationJob.metadata.name);
    const api = await stored(rendered.api.deployment, 'deployments');
    expect(api).toMatchObject({ spec: rendered.api.deployment.spec });
    expect(await stored(rendered.api.service, 'services')).toMatchObject({ spec: rendered.api.service.spec });
    expect(await stored(rendered.api.disruptionBudget, 'poddisruptionbudgets')).toMatchObject({ spec: rendered.api.disruptionBudget.spec });
    expect((await cluster.kube('GET', pathOf(rendered.worker.deployment, 'deployments'))).status).toBe(404);

    await markDeploymentAvailable(cluster.kube, ns, rendered.api.deployment.metadata.name);
    expect(await stored(rendered.worker.deployment, 'deployments')).toMatchObject({ spec: rendered.worker.deployment.spec });
    expect(await stored(rendered.consumer.deployment, 'deployments')).toMatchObject({ spec: rendered.consumer.deployment.spec });
    await markDeploymentAvailable(cluster.kube, ns, rendered.worker.deployment.metadata.name);
    await markDeploymentAvailable(cluster.kube, ns, rendered.consumer.deployment.metadata.name);
    await eventually(async () =>
      expect((await readShop(cluster.kube, ns, 'shop')).status).toMatchObject({ phase: 'Ready', migratedVersion: '1.4.0' }),
    );
  });

  it('runs the api, worker and consumer with spec.fileStorage as variables, and the api alone with the S3 keys from their Secret', async () => {
    const ns = await cluster.namespace('object-storage');
    await createReferencedSecrets(cluster.kube, ns);
    await cluster.kube('POST', `/api/v1/namespaces/${ns}/secrets`, {
      metadata: { name: 'shop-s3' },
      stringData: { access: 'AKIAEXAMPLE', secret: 's'.repeat(40) },
    });
    const shop: Shop = shopManifest('shop', '1.4.0', {
      fileStorage: {
        provider: 's3',
        s3: { endpoint: 'https://s3.example.com', bucket: 'shop-media', publicUrl: 'https://cdn.example.com' },
      },
    });
    Object.assign(shop.spec.secrets, { s3AccessKey: { name: 'shop-s3', key: 'access' }, s3SecretKey: { name: 'shop-s3', key: 'secret' } });
    await createShop(cluster.kube, ns, shop);
    const rendered = renderShop({ ...shop, metadata: { ...shop.metadata, namespace: ns } });
    await stored(rendered.migrationJob, 'jobs');
    await completeJob(cluster.kube, ns, rendered.migrationJob.metadata.name);
    await stored(rendered.api.deployment, 'deployments');
    await markDeploymentAvailable(cluster.kube, ns, rendered.api.deployment.metadata.name);

    type EnvVar = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } };
    for (const object of [rendered.api.deployment, rendered.worker.deployment, rendered.consumer.deployment]) {
      const deployment = (await stored(object, 'deployments')) as {
        spec: { template: { spec: { containers: Array<{ env: EnvVar[] }> } } };
      };
      const byName = new Map((deployment.spec.template.spec.containers[0]?.env ?? []).map((variable) => [variable.name, variable]));
      const values = ['FILE_STORAGE_PROVIDER', 'S3_ENDPOINT', 'S3_BUCKET', 'S3_PUBLIC_URL'].map((variable) => byName.get(variable)?.value);
      expect([object.metadata.name, values]).toEqual([
        object.metadata.name,
        ['s3', 'https://s3.example.com', 'shop-media', 'https://cdn.example.com'],
      ]);
      if (object === rendered.api.deployment) {
        expect(byName.get('S3_ACCESS_KEY')).toEqual({
          name: 'S3_ACCESS_KEY',
          valueFrom: { secretKeyRef: { name: 'shop-s3', key: 'access' } },
        });
        expect(byName.get('S3_SECRET_KEY')).toEqual({
          name: 'S3_SECRET_KEY',
          valueFrom: { secretKeyRef: { name: 'shop-s3', key: 'secret' } },
        });
      } else {
        // Only the api stores files.
        expect([object.metadata.name, byName.has('S3_ACCESS_KEY'), byName.has('S3_SECRET_KEY')]).toEqual([
          object.metadata.name,
          false,
          false,
        ]);
      }
    }
  });

  it('gives each Job the secrets its program reads: the migration Job DATABASE_URL alone, the seed Job the platform and the master keys', async () => {
    const ns = await cluster.namespace('job-secrets');
    await createReferencedSecrets(cluster.kube, ns);
    const shop: Shop = shopManifest('shop', '1.4.0', { seed: { adminSecretName: 'shop-admin' } });
    Object.assign(shop.spec.secrets, {
      workflowHost: { name: 'shop-temporal', key: 'address' },
      storefrontSearchOnlyKey: { name: 'shop-search', key: 'search-only' },
    });
    for (const [name, data] of [
      ['shop-temporal', { address: 'temporal.example:7233' }],
      ['shop-search', { 'search-only': 'k' }],
      ['shop-admin', { email: 'a@example.com', password: 'p'.repeat(16) }],
    ] as const) {
      expectStatus(await cluster.kube('POST', `/api/v1/namespaces/${ns}/secrets`, { metadata: { name }, stringData: data }), 201);
    }
    await createShop(cluster.kube, ns, shop);
    const rendered = renderShop({ ...shop, metadata: { ...shop.metadata, namespace: ns } });
    type Job = {
      spec: {
        template: { spec: { containers: Array<{ env: Array<{ name: string; valueFrom?: { secretKeyRef?: { name: string } } }> }> } };
      };
    };
    const secretVariables = (job: Job) =>
      (job.spec.template.spec.containers[0]?.env ?? [])
        .filter((variable) => variable.valueFrom?.secretKeyRef)
        .map((variable) => variable.name);

    const migration = (await stored(rendered.migrationJob, 'jobs')) as unknown as Job;
    expect(secretVariables(migration)).toEqual(['DATABASE_URL']);
    await completeJob(cluster.kube, ns, rendered.migrationJob.metadata.name);
    const seedJob = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'shop-seed', namespace: ns } };
    const seed = (await stored(seedJob, 'jobs')) as unknown as Job;
    expect(secretVariables(seed).sort()).toEqual(
      [
        'DATABASE_URL',
        'CACHE_URL',
        'BROKER_ADDRESS',
        'SECRET_KEY',
        'SECRETS_MASTER_KEY',
        'SECRETS_MASTER_KEY_ROTATING_FROM',
        'SEED_ADMIN_EMAIL',
        'SEED_ADMIN_PASSWORD',
        'SEED_ADMIN_NAME',
      ].sort(),
    );
  });

  it('leaves the replicas of an autoscaled api to its HorizontalPodAutoscaler, through a pass that applies a new template', async () => {
    const ns = await cluster.namespace('autoscaled');
    await createReferencedSecrets(cluster.kube, ns);
    const shop: Shop = shopManifest('shop', '1.4.0', { api: { replicas: 2, autoscaling: { minReplicas: 2, maxReplicas: 6 } } });
    await createShop(cluster.kube, ns, shop);
    const rendered = renderShop({ ...shop, metadata: { ...shop.metadata, namespace: ns } });
    expect(rendered.api.deployment.spec).not.toHaveProperty('replicas');
    await stored(rendered.migrationJob, 'jobs');
    await completeJob(cluster.kube, ns, rendered.migrationJob.metadata.name);
    await stored(rendered.api.deployment, 'deployments');
    const autoscaler = rendered.api.autoscaler;
    if (!autoscaler) throw new Error('renderShop rendered no autoscaler for spec.api.autoscaling');
    expect(await stored(autoscaler, 'horizontalpodautoscalers')).toMatchObject({
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'shop-api' },
        minReplicas: 2,
        maxReplicas: 6,
        metrics: [{ resource: { name: 'cpu', target: { averageUtilization: 70 } } }],
      },
    });

    // As the HPA controller scales: an update of the scale subresource, as kube-controller-manager.
    const scalePath = `${pathOf(rendered.api.deployment, 'deployments')}/scale`;
    const scale = (await cluster.kube<{ spec: { replicas?: number } }>('GET', scalePath)).body;
    expectStatus(await cluster.kube('PUT', `${scalePath}?fieldManager=kube-controller-manager`, { ...scale, spec: { replicas: 4 } }), 200);

    await updateShop(cluster.kube, ns, 'shop', (changed) => (changed.spec.config = { LOG_LEVEL: 'DEBUG' }));
    const generation = (await readShop(cluster.kube, ns, 'shop')).metadata.generation;
    await eventually(async () =>
      expect((await readShop(cluster.kube, ns, 'shop')).status).toMatchObject({ observedGeneration: generation }),
    );
    type Deployment = {
      spec: { replicas: number; template: { spec: { containers: Array<{ envFrom: Array<{ configMapRef: { name: string } }> }> } } };
    };
    const api = (await cluster.kube<Deployment>('GET', pathOf(rendered.api.deployment, 'deployments'))).body;
    const reconfigured = renderShop({
      ...shop,
      spec: { ...shop.spec, config: { LOG_LEVEL: 'DEBUG' } },
      metadata: { ...shop.metadata, namespace: ns },
    });
    // The pass applied the Deployment (its template names the new ConfigMap) and left the replicas as scaled.
    expect(api.spec.template.spec.containers[0]?.envFrom).toEqual([{ configMapRef: { name: reconfigured.configMap.metadata.name } }]);
    expect(api.spec.replicas).toBe(4);
  });
});
