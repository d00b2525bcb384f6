// The operator with the real renderer (as main.ts runs it): what @shop/cdk8s renders reaches the API
// server intact through server-side apply, and the rollout order holds for the real objects.
import { renderShop, type KubeObject, type Shop } from '@shop/cdk8s';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningOperator } from '../src/operator.ts';
import { eventually } from '../../test/support/wait.ts';
import { completeJob, markDeploymentAvailable } from '../../test/infra/workloads.ts';
import { runOperator } from './support/run-operator.ts';
import { createReferencedSecrets, createShop, readShop, shopManifest } from './support/shops.ts';
import { startTestCluster, type TestCluster } from './support/test-cluster.ts';

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

describe('the operator with renderShop', () => {
  it('applies the rendered objects unchanged, in rollout order, up to Ready', async () => {
    const ns = await cluster.namespace('rendered');
    await createReferencedSecrets(cluster.kube, ns);
    const shop: Shop = shopManifest('shop', '1.4.0', { config: { LOG_LEVEL: 'DEBUG' } });
    await createShop(cluster.kube, ns, shop);
    const rendered = renderShop({ ...shop, metadata: { ...shop.metadata, namespace: ns } });

    const job = await stored(rendered.migrationJob, 'jobs');
    // Every rendered field survives (the client's serializer drops fields it does not know).
    expect(job).toMatchObject({ spec: rendered.migrationJob.spec });
    expect(await stored(rendered.configMap, 'configmaps')).toMatchObject({ data: rendered.configMap.data });
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
    await eventually(async () => expect((await readShop(cluster.kube, ns, 'shop')).status).toMatchObject({ phase: 'Ready', migratedVersion: '1.4.0' }));
  });

  it('runs the api, worker and consumer with spec.fileStorage as variables and the S3 keys from their Secret', async () => {
    const ns = await cluster.namespace('object-storage');
    await createReferencedSecrets(cluster.kube, ns);
    await cluster.kube('POST', `/api/v1/namespaces/${ns}/secrets`, { metadata: { name: 'shop-s3' }, stringData: { access: 'AKIAEXAMPLE', secret: 's'.repeat(40) } });
    const shop: Shop = shopManifest('shop', '1.4.0', { fileStorage: { provider: 's3', s3: { endpoint: 'https://s3.example.com', bucket: 'shop-media', publicUrl: 'https://cdn.example.com' } } });
    Object.assign(shop.spec.secrets, { s3AccessKey: { name: 'shop-s3', key: 'access' }, s3SecretKey: { name: 'shop-s3', key: 'secret' } });
    await createShop(cluster.kube, ns, shop);
    const rendered = renderShop({ ...shop, metadata: { ...shop.metadata, namespace: ns } });
    await stored(rendered.migrationJob, 'jobs');
    await completeJob(cluster.kube, ns, rendered.migrationJob.metadata.name);
    await stored(rendered.api.deployment, 'deployments');
    await markDeploymentAvailable(cluster.kube, ns, rendered.api.deployment.metadata.name);

    type EnvVar = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } };
    for (const object of [rendered.api.deployment, rendered.worker.deployment, rendered.consumer.deployment]) {
      const deployment = (await stored(object, 'deployments')) as { spec: { template: { spec: { containers: Array<{ env: EnvVar[] }> } } } };
      const byName = new Map((deployment.spec.template.spec.containers[0]?.env ?? []).map((variable) => [variable.name, variable]));
      const values = ['FILE_STORAGE_PROVIDER', 'S3_ENDPOINT', 'S3_BUCKET', 'S3_PUBLIC_URL'].map((variable) => byName.get(variable)?.value);
      expect([object.metadata.name, values]).toEqual([object.metadata.name, ['s3', 'https://s3.example.com', 'shop-media', 'https://cdn.example.com']]);
      expect(byName.get('S3_ACCESS_KEY')).toEqual({ name: 'S3_ACCESS_KEY', valueFrom: { secretKeyRef: { name: 'shop-s3', key: 'access' } } });
      expect(byName.get('S3_SECRET_KEY')).toEqual({ name: 'S3_SECRET_KEY', valueFrom: { secretKeyRef: { name: 'shop-s3', key: 'secret' } } });
    }
  });
});
