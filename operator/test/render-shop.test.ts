// The operator with the real renderer (as main.ts runs it): what @shop/cdk8s renders reaches the API
// server intact through server-side apply, and the rollout order holds for the real objects.
import { renderShop, type KubeObject, type Shop } from '@shop/cdk8s';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningOperator } from '../src/operator.ts';
import { eventually } from '../../test/support/wait.ts';
import { completeJob, markDeploymentAvailable } from './support/fake-controllers.ts';
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
});
