import { describe, expect, it } from 'vitest';
import { manifestList, renderShop, type KubeObject } from '../src/index.ts';
import { minimalShop } from './support/shops.ts';

interface Policy {
  metadata: { name: string; labels: Record<string, string> };
  spec: {
    podSelector: { matchLabels: Record<string, string> };
    policyTypes: string[];
    ingress?: Array<{ ports?: Array<{ protocol: string; port: number }>; from?: Array<Record<string, unknown>> }>;
    egress?: unknown;
  };
}

const policy = (object: KubeObject | undefined) => object as unknown as Policy;
const MONITORING = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } };

describe('spec.networkPolicy', () => {
  it('renders no NetworkPolicy by default, or when not enabled', () => {
    for (const shop of [minimalShop(), minimalShop((s) => (s.spec.networkPolicy = { enabled: false, metricsFrom: [MONITORING] }))]) {
      const manifests = renderShop(shop);
      expect(manifests.networkPolicies).toBeUndefined();
      expect(manifestList(manifests).map((object) => object.kind)).not.toContain('NetworkPolicy');
    }
  });

  it("denies every inbound connection to the Shop's pods, the Jobs' too, and restricts no egress", () => {
    const manifests = renderShop(minimalShop((shop) => (shop.spec.networkPolicy = { enabled: true })));
    const deny = policy(manifests.networkPolicies?.defaultDeny);
    expect(deny.metadata.name).toBe('acme-default-deny');
    expect(deny.spec).toEqual({
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'shop', 'app.kubernetes.io/instance': 'acme' } },
      policyTypes: ['Ingress'],
    });
    // The selector matches the pods of every workload, the migration Job's included.
    const podLabels = (object: KubeObject) =>
      (object.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
    for (const workload of [manifests.migrationJob, manifests.api.deployment, manifests.worker.deployment, manifests.consumer.deployment]) {
      expect(podLabels(workload)).toMatchObject(deny.spec.podSelector.matchLabels);
    }
    for (const object of Object.values(manifests.networkPolicies ?? {})) expect(policy(object).spec.policyTypes).toEqual(['Ingress']);
  });

  it("lets anyone reach the api's http port by default, and only that port", () => {
    const manifests = renderShop(minimalShop((shop) => (shop.spec.networkPolicy = { enabled: true, apiFrom: [] })));
    const api = policy(manifests.networkPolicies?.api);
    expect(api.metadata).toMatchObject({
      name: 'acme-api',
      labels: { 'app.kubernetes.io/component': 'api', 'app.kubernetes.io/instance': 'acme' },
    });
    expect(api.spec.podSelector.matchLabels).toEqual(
      (manifests.api.deployment.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels,
    );
    expect(api.spec.ingress).toEqual([{ ports: [{ protocol: 'TCP', port: 3000 }] }]);
  });

  it("lets only the peers of apiFrom reach the api, and those of metricsFrom the worker's and consumer's metrics ports", () => {
    const ingressController = {
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } },
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'ingress-nginx' } },
    };
    const storefront = { podSelector: { matchExpressions: [{ key: 'app', operator: 'In' as const, values: ['storefront'] }] } };
    const manifests = renderShop(
      minimalShop(
        (shop) => (shop.spec.networkPolicy = { enabled: true, apiFrom: [ingressController, storefront], metricsFrom: [MONITORING] }),
      ),
    );
    expect(policy(manifests.networkPolicies?.api).spec.ingress).toEqual([
      { ports: [{ protocol: 'TCP', port: 3000 }], from: [ingressController, storefront] },
    ]);
    expect(policy(manifests.networkPolicies?.worker).spec).toMatchObject({
      podSelector: { matchLabels: { 'app.kubernetes.io/component': 'worker' } },
      ingress: [{ ports: [{ protocol: 'TCP', port: 9465 }], from: [MONITORING] }],
    });
    expect(policy(manifests.networkPolicies?.consumer).spec).toMatchObject({
      podSelector: { matchLabels: { 'app.kubernetes.io/component': 'consumer' } },
      ingress: [{ ports: [{ protocol: 'TCP', port: 9464 }], from: [MONITORING] }],
    });
  });

  it('lets nothing reach the worker and the consumer without metricsFrom', () => {
    const manifests = renderShop(minimalShop((shop) => (shop.spec.networkPolicy = { enabled: true })));
    for (const component of ['worker', 'consumer'] as const) {
      expect(policy(manifests.networkPolicies?.[component]).spec).toEqual({ podSelector: expect.any(Object), policyTypes: ['Ingress'] });
    }
  });

  it('lists the NetworkPolicies right after the ConfigMap, before any workload', () => {
    const manifests = renderShop(minimalShop((shop) => (shop.spec.networkPolicy = { enabled: true })));
    expect(
      manifestList(manifests)
        .map((object) => `${object.kind}/${object.metadata.name}`)
        .slice(0, 6),
    ).toEqual([
      `Job/${manifests.migrationJob.metadata.name}`,
      `ConfigMap/${manifests.configMap.metadata.name}`,
      'NetworkPolicy/acme-default-deny',
      'NetworkPolicy/acme-api',
      'NetworkPolicy/acme-worker',
      'NetworkPolicy/acme-consumer',
    ]);
  });
});
