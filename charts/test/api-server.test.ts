// `helm template` output as a real API server takes it: a server-side dry run with strict field validation.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startKubeApiServer, type KubeApiServer } from '../../test/infra/kubernetes.ts';
import { kubeClient, type KubeRequest } from '../../test/infra/kube-client.ts';
import { prometheusOperatorCrdFile } from '../../test/infra/prometheus.ts';
import { OPERATOR_CHART, REPO_ROOT, SHOP_CHART, one, template, type Release } from './support/helm.ts';
import { create, createNamespace } from './support/kube.ts';
import { waitEstablished } from '../../test/infra/kube-client.ts';

describe('the charts on a real API server', () => {
  let server: KubeApiServer;
  let kube: KubeRequest;

  beforeAll(async () => {
    server = await startKubeApiServer();
    kube = kubeClient(server);
    // The operator chart's CRD, created for real: the Shops of the shop chart need it.
    const crd = one(await template(OPERATOR_CHART, { name: 'shop-operator', namespace: 'shop-system' }), 'CustomResourceDefinition');
    expect((await create(kube, crd)).status).toBe(201);
    await waitEstablished(kube, 'shops.shop.dev');
    // The operator chart's ServiceMonitor and PrometheusRule, when enabled, need the Prometheus Operator's.
    for (const plural of ['servicemonitors', 'prometheusrules']) {
      expect((await create(kube, parse(await readFile(prometheusOperatorCrdFile(plural), 'utf8')))).status).toBe(201);
      await waitEstablished(kube, `${plural}.monitoring.coreos.com`);
    }
    for (const namespace of ['shop-system', 'shops']) await createNamespace(kube, namespace);
    await createNamespace(kube, 'restricted', {
      'pod-security.kubernetes.io/enforce': 'restricted',
      'pod-security.kubernetes.io/enforce-version': 'latest',
    });
  }, 180_000);

  afterAll(async () => {
    await server?.dispose();
  });

  const releases: Array<[string, string, () => Promise<Release>]> = [
    ['shop-operator with its defaults', OPERATOR_CHART, async () => ({ name: 'shop-operator', namespace: 'shop-system' })],
    [
      'shop-operator for one namespace, one replica, no leader election, an existing ServiceAccount',
      OPERATOR_CHART,
      async () => ({
        name: 'single',
        namespace: 'shop-system',
        values: {
          watchNamespace: 'shops',
          replicas: 1,
          leaderElection: { enabled: false },
          serviceAccount: { create: false, name: 'shop-operator' },
        },
      }),
    ],
    [
      'shop-operator with its ServiceMonitor, PrometheusRule and dashboard',
      OPERATOR_CHART,
      async () => ({
        name: 'monitored',
        namespace: 'shop-system',
        values: {
          serviceMonitor: { enabled: true },
          prometheusRule: { enabled: true, labels: { release: 'prometheus' } },
          dashboard: { enabled: true },
        },
      }),
    ],
    [
      'shop-operator with Secrets in two namespaces only and the replicas required on different nodes',
      OPERATOR_CHART,
      async () => ({
        name: 'narrow',
        namespace: 'shop-system',
        values: { rbac: { create: true, secretNamespaces: ['shops', 'restricted'] }, podAntiAffinity: 'required', crd: { install: false } },
      }),
    ],
    ['shop with its defaults', SHOP_CHART, async () => ({ name: 'acme', namespace: 'shops' })],
    [
      'shop with dashboards, alerts and PodMonitor on',
      SHOP_CHART,
      async () => ({
        name: 'monitored',
        namespace: 'shops',
        values: {
          monitoring: {
            dashboards: { enabled: true, folder: 'Shops' },
            alerts: { enabled: true, exclude: ['ApiLatencyHigh'] },
            podMonitors: { enabled: true, labels: { release: 'prometheus' } },
          },
        },
      }),
    ],
    [
      'shop with object storage: the s3 fields and the keys from a Secret',
      SHOP_CHART,
      async () => ({
        name: 'stored',
        namespace: 'shops',
        values: {
          fileStorage: {
            provider: 's3',
            s3: { endpoint: 'https://s3.example.com', bucket: 'stored-media', publicUrl: 'https://cdn.example.com' },
          },
          secrets: {
            databaseUrl: { name: 'shop-database', key: 'url' },
            cacheUrl: { name: 'shop-cache', key: 'url' },
            brokerAddress: { name: 'shop-kafka', key: 'bootstrap-servers' },
            s3AccessKey: { name: 'stored-s3', key: 'access-key' },
            s3SecretKey: { name: 'stored-s3', key: 'secret-key' },
          },
        },
      }),
    ],
    [
      'shop with the spec of cdk8s/examples/shop.yaml',
      SHOP_CHART,
      async () => {
        const example = parse(await readFile(path.join(REPO_ROOT, 'cdk8s/examples/shop.yaml'), 'utf8')) as {
          spec: Record<string, unknown>;
        };
        return { name: 'example', namespace: 'shops', values: example.spec };
      },
    ],
  ];
  for (const [what, chart, release] of releases) {
    it(`accepts every object of ${what}`, async () => {
      const objects = await template(chart, await release());
      expect(objects.length).toBeGreaterThan(0);
      // The CRD exists already: beforeAll created it from the same template.
      for (const object of objects.filter(({ kind }) => kind !== 'CustomResourceDefinition')) {
        const reply = await create(kube, object, { dryRun: true });
        expect([`${object.kind} ${object.metadata.name}`, reply.status, reply.body.message]).toEqual([
          `${object.kind} ${object.metadata.name}`,
          201,
          undefined,
        ]);
      }
    });
  }

  it('runs the operator pod under the "restricted" Pod Security Standard', async () => {
    const deployment = one(await template(OPERATOR_CHART, { name: 'shop-operator', namespace: 'restricted' }), 'Deployment');
    const { metadata, spec } = (deployment.spec as { template: { metadata: { labels: Record<string, string> }; spec: object } }).template;
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { ...metadata, name: 'shop-operator-pod', namespace: 'restricted' }, spec };
    const reply = await create(kube, pod, { dryRun: true });
    expect([reply.status, reply.body.message]).toEqual([201, undefined]);
  });
});
