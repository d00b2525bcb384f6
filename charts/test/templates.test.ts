import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CHART_CRD_FILE } from '../../operator/src/crd/generate-crd.ts';
import { OPERATOR_CHART, REPO_ROOT, SHOP_CHART, one, only, template, type RenderedObject } from './support/helm.ts';

interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

interface Container {
  command: string[];
  env: Array<{ name: string; value?: string; valueFrom?: unknown }>;
  [field: string]: unknown;
}

/** What the operator needs, from operator/src; the chart's rules must say exactly this. */
const SHOP_RULES = [
  'shop.dev shops: get list watch patch',
  'shop.dev shops/status: patch',
  'shop.dev shops/finalizers: update',
  'batch jobs: get list watch create patch delete',
  'apps deployments: get list watch create patch delete',
  'apps replicasets: list',
  'core services: list watch create patch delete',
  'core configmaps: list watch create patch delete',
  'monitoring.coreos.com prometheusrules: list watch create patch delete',
  'monitoring.coreos.com podmonitors: list watch create patch delete',
  'policy poddisruptionbudgets: list watch create patch delete',
  'autoscaling horizontalpodautoscalers: list watch create patch delete',
  'networking.k8s.io networkpolicies: list watch create patch delete',
  'core secrets: get list watch create update',
  'core pods: list watch',
  'core events: create list',
];

/** The kinds the operator renders for a Shop, and prunes (operator/src/reconcile/steps/prune.ts); a retry deletes a failed migration Job. */
const PRUNED_RESOURCES = [
  'jobs',
  'deployments',
  'services',
  'configmaps',
  'prometheusrules',
  'podmonitors',
  'poddisruptionbudgets',
  'horizontalpodautoscalers',
  'networkpolicies',
];

/** One line per group, resource and resource name: "apps deployments: get list", "coordination.k8s.io leases[x]: get". */
function ruleLines(rules: readonly PolicyRule[]): string[] {
  return rules.flatMap((rule) =>
    rule.apiGroups.flatMap((group) =>
      rule.resources.map((resource) => {
        const names = rule.resourceNames ? `[${rule.resourceNames.join(',')}]` : '';
        return `${group || 'core'} ${resource}${names}: ${rule.verbs.join(' ')}`;
      }),
    ),
  );
}

const rulesOf = (object: RenderedObject) => object.rules as PolicyRule[];
const containerOf = (deployment: RenderedObject) =>
  (deployment as unknown as { spec: { template: { spec: { containers: Container[] } } } }).spec.template.spec.containers[0] as Container;

describe('shop-operator RBAC', () => {
  it('all namespaces: a ClusterRole with exactly the rules the operator needs, bound to its ServiceAccount', async () => {
    const objects = await template(OPERATOR_CHART, { name: 'shop-operator', namespace: 'shop-system' });
    expect(only(objects, 'Role').map((role) => role.metadata.name)).toEqual(['shop-operator-leader-election']);
    expect(ruleLines(rulesOf(one(objects, 'ClusterRole')))).toEqual(SHOP_RULES);
    expect(one(objects, 'ClusterRoleBinding')).toMatchObject({
      roleRef: { kind: 'ClusterRole', name: 'shop-operator' },
      subjects: [{ kind: 'ServiceAccount', name: 'shop-operator', namespace: 'shop-system' }],
    });
  });

  it('the Lease only, in the release namespace: create, and get and update by name', async () => {
    const objects = await template(OPERATOR_CHART, { name: 'shop-operator', namespace: 'shop-system' });
    const role = one(objects, 'Role');
    expect(role.metadata.namespace).toBe('shop-system');
    expect(ruleLines(rulesOf(role))).toEqual([
      'coordination.k8s.io leases: create',
      'coordination.k8s.io leases[shop-operator]: get update',
    ]);
    expect(one(objects, 'RoleBinding')).toMatchObject({
      metadata: { namespace: 'shop-system' },
      roleRef: { kind: 'Role', name: role.metadata.name },
    });
  });

  it('watchNamespace: the same rules in a Role of that namespace, and no cluster-wide ones', async () => {
    const objects = await template(OPERATOR_CHART, {
      name: 'shop-operator',
      namespace: 'shop-system',
      values: { watchNamespace: 'shops' },
    });
    expect(only(objects, 'ClusterRole')).toEqual([]);
    expect(only(objects, 'ClusterRoleBinding')).toEqual([]);
    const role = only(objects, 'Role').find((candidate) => candidate.metadata.namespace === 'shops');
    expect(role && ruleLines(rulesOf(role))).toEqual(SHOP_RULES);
    expect(only(objects, 'RoleBinding').find((binding) => binding.metadata.namespace === 'shops')).toMatchObject({
      roleRef: { kind: 'Role', name: role?.metadata.name },
      subjects: [{ kind: 'ServiceAccount', name: 'shop-operator', namespace: 'shop-system' }],
    });
  });

  it('has no wildcard, and deletes only the kinds it renders (never a Secret), in any mode', async () => {
    for (const values of [{}, { watchNamespace: 'shops' }]) {
      const objects = await template(OPERATOR_CHART, { name: 'shop-operator', namespace: 'shop-system', values });
      const rules = [...only(objects, 'ClusterRole'), ...only(objects, 'Role')].flatMap(rulesOf);
      expect(rules.length).toBeGreaterThan(0);
      for (const rule of rules) {
        expect([...rule.apiGroups, ...rule.resources, ...rule.verbs, ...(rule.resourceNames ?? [])]).not.toContain('*');
        // Pruning deletes what a Shop owns and no longer renders; the generated keys must outlive everything.
        if (rule.verbs.includes('delete')) expect(rule.resources.filter((resource) => !PRUNED_RESOURCES.includes(resource))).toEqual([]);
        expect(rule.verbs).not.toContain('deletecollection');
        expect(rule.verbs).not.toContain('escalate');
      }
    }
  });

  it('without leader election and with rbac.create false: no Lease role; no RBAC at all', async () => {
    const single = await template(OPERATOR_CHART, {
      name: 'op',
      namespace: 'ns',
      values: { replicas: 1, leaderElection: { enabled: false } },
    });
    expect(only(single, 'Role')).toEqual([]);
    const none = await template(OPERATOR_CHART, { name: 'op', namespace: 'ns', values: { rbac: { create: false } } });
    expect(none.filter((object) => object.apiVersion.startsWith('rbac.'))).toEqual([]);
  });
});

describe('shop-operator RBAC for Secrets in chosen namespaces', () => {
  it('rbac.secretNamespaces: no Secret rule in the ClusterRole, a Role and binding in each namespace named', async () => {
    const objects = await template(OPERATOR_CHART, {
      name: 'shop-operator',
      namespace: 'shop-system',
      values: { rbac: { create: true, secretNamespaces: ['eu', 'us'] } },
    });
    expect(ruleLines(rulesOf(one(objects, 'ClusterRole')))).toEqual(SHOP_RULES.filter((rule) => !rule.startsWith('core secrets')));
    expect(containerOf(one(objects, 'Deployment')).env).toContainEqual({ name: 'SECRET_NAMESPACES', value: 'eu,us' });
    const secretRoles = only(objects, 'Role').filter((role) => role.metadata.name === 'shop-operator-secrets');
    expect(secretRoles.map((role) => [role.metadata.namespace, ruleLines(rulesOf(role))])).toEqual([
      ['eu', ['core secrets: get list watch create update']],
      ['us', ['core secrets: get list watch create update']],
    ]);
    for (const namespace of ['eu', 'us']) {
      expect(only(objects, 'RoleBinding').find((binding) => binding.metadata.namespace === namespace)).toMatchObject({
        roleRef: { kind: 'Role', name: 'shop-operator-secrets' },
        subjects: [{ kind: 'ServiceAccount', name: 'shop-operator', namespace: 'shop-system' }],
      });
    }
  });

  it('refuses rbac.secretNamespaces beside watchNamespace, which already keeps Secrets to one namespace', async () => {
    const values = { watchNamespace: 'shops', rbac: { create: true, secretNamespaces: ['eu'] } };
    await expect(template(OPERATOR_CHART, { name: 'op', namespace: 'ns', values })).rejects.toThrow(
      /rbac.secretNamespaces is for an operator of all namespaces/,
    );
  });
});

describe('shop-operator CRD', () => {
  it('renders the generated CRD, kept by Helm on uninstall', async () => {
    const generated = parse(await readFile(CHART_CRD_FILE, 'utf8')) as RenderedObject;
    const rendered = one(await template(OPERATOR_CHART, { name: 'op', namespace: 'ns' }), 'CustomResourceDefinition');
    expect(rendered.spec).toEqual(generated.spec);
    expect(rendered.metadata).toMatchObject({
      name: 'shops.shop.dev',
      annotations: { 'helm.sh/resource-policy': 'keep' },
      labels: { 'app.kubernetes.io/managed-by': 'Helm' },
    });
  });

  it('is left out with crd.install false, for a second operator release', async () => {
    expect(
      only(
        await template(OPERATOR_CHART, { name: 'op', namespace: 'ns', values: { crd: { install: false } } }),
        'CustomResourceDefinition',
      ),
    ).toEqual([]);
  });
});

describe('shop-operator replicas on different nodes', () => {
  const affinityOf = (objects: readonly RenderedObject[]) =>
    (one(objects, 'Deployment').spec as { template: { spec: { affinity?: unknown } } }).template.spec.affinity;
  const selector = { matchLabels: { 'app.kubernetes.io/name': 'shop-operator', 'app.kubernetes.io/instance': 'op' } };

  it('two replicas: a disruption budget of one, and anti-affinity preferred by default or required', async () => {
    const objects = await template(OPERATOR_CHART, { name: 'op', namespace: 'ns' });
    expect(one(objects, 'PodDisruptionBudget').spec).toEqual({ maxUnavailable: 1, selector });
    expect(affinityOf(objects)).toEqual({
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight: 100, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: selector } },
        ],
      },
    });
    const required = await template(OPERATOR_CHART, { name: 'op', namespace: 'ns', values: { podAntiAffinity: 'required' } });
    expect(affinityOf(required)).toEqual({
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: selector }],
      },
    });
  });

  it('one replica, none, or an affinity of your own: no anti-affinity of the chart; no budget for one replica', async () => {
    const single = await template(OPERATOR_CHART, { name: 'op', namespace: 'ns', values: { replicas: 1 } });
    expect([only(single, 'PodDisruptionBudget'), affinityOf(single)]).toEqual([[], undefined]);
    expect(
      affinityOf(await template(OPERATOR_CHART, { name: 'op', namespace: 'ns', values: { podAntiAffinity: 'none' } })),
    ).toBeUndefined();
    const own = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: 'pool', operator: 'In', values: ['system'] }] }],
        },
      },
    };
    expect(affinityOf(await template(OPERATOR_CHART, { name: 'op', namespace: 'ns', values: { affinity: own } }))).toEqual(own);
    expect(
      only(
        await template(OPERATOR_CHART, { name: 'op', namespace: 'ns', values: { podDisruptionBudget: { enabled: false } } }),
        'PodDisruptionBudget',
      ),
    ).toEqual([]);
  });
});

describe('shop-operator Deployment', () => {
  it('runs node operator/src/main.ts from the operator image with the operator variables', async () => {
    const objects = await template(OPERATOR_CHART, {
      name: 'shop-operator',
      namespace: 'shop-system',
      values: { image: { tag: '1.4.0' } },
    });
    const container = containerOf(one(objects, 'Deployment'));
    expect(container).toMatchObject({ image: 'shop/operator:1.4.0', command: ['node', 'operator/src/main.ts'] });
    const env = Object.fromEntries(container.env.map((variable) => [variable.name, variable.value ?? variable.valueFrom]));
    expect(env).toEqual({
      METRICS_PORT: '8081',
      RESYNC_SECONDS: '1800',
      LEADER_ELECTION: 'true',
      JOB_HISTORY_LIMIT: '3',
      ROLLOUT_BATCH_SIZE: '5',
      ROLLOUT_INTERVAL_SECONDS: '60',
      LEASE_NAME: 'shop-operator',
      LEASE_DURATION_SECONDS: '15',
      LEASE_RENEW_DEADLINE_SECONDS: '10',
      LEASE_RETRY_PERIOD_SECONDS: '2',
      POD_NAMESPACE: { fieldRef: { fieldPath: 'metadata.namespace' } },
      POD_NAME: { fieldRef: { fieldPath: 'metadata.name' } },
    });
  });

  it('sets only variables the operator reads (operator/src/config.ts)', async () => {
    const config = await readFile(path.join(REPO_ROOT, 'operator/src/config.ts'), 'utf8');
    const read = new Set([...config.matchAll(/'([A-Z][A-Z0-9_]+)'/g)].map((match) => match[1]));
    const objects = await template(OPERATOR_CHART, {
      name: 'op',
      namespace: 'ns',
      values: { watchNamespace: 'shops', runbookBaseUrl: 'https://github.com/acme/shop/blob/v1/' },
    });
    const names = containerOf(one(objects, 'Deployment')).env.map((variable) => variable.name);
    expect(names).toContain('WATCH_NAMESPACE');
    expect(containerOf(one(objects, 'Deployment')).env).toContainEqual({
      name: 'RUNBOOK_BASE_URL',
      value: 'https://github.com/acme/shop/blob/v1/',
    });
    expect(names.filter((name) => !read.has(name))).toEqual([]);
  });

  it('probes /healthz and /readyz on the metrics port, which the Service exposes', async () => {
    const objects = await template(OPERATOR_CHART, { name: 'op', namespace: 'ns', values: { metrics: { port: 9100 } } });
    const container = containerOf(one(objects, 'Deployment'));
    expect(container.ports).toEqual([{ name: 'metrics', containerPort: 9100, protocol: 'TCP' }]);
    expect(container.livenessProbe).toMatchObject({ httpGet: { path: '/healthz', port: 'metrics' } });
    expect(container.readinessProbe).toMatchObject({ httpGet: { path: '/readyz', port: 'metrics' } });
    expect(container.env).toContainEqual({ name: 'METRICS_PORT', value: '9100' });
    expect(one(objects, 'Service')).toMatchObject({ spec: { ports: [{ name: 'metrics', port: 9100, targetPort: 'metrics' }] } });
  });

  it('a ServiceMonitor only when asked for', async () => {
    expect(only(await template(OPERATOR_CHART, { name: 'op', namespace: 'ns' }), 'ServiceMonitor')).toEqual([]);
    const objects = await template(OPERATOR_CHART, {
      name: 'op',
      namespace: 'ns',
      values: { serviceMonitor: { enabled: true, labels: { release: 'prometheus' } } },
    });
    const { selector } = one(objects, 'Service').spec as { selector: Record<string, string> };
    expect(one(objects, 'ServiceMonitor')).toMatchObject({
      metadata: { labels: { release: 'prometheus' } },
      spec: { selector: { matchLabels: selector }, endpoints: [{ port: 'metrics', path: '/metrics' }] },
    });
  });
});

describe('the images the charts run by default', () => {
  it('are the operator and platform images the image build names, at the platform version', async () => {
    const { version } = JSON.parse(await readFile(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    const operator = containerOf(one(await template(OPERATOR_CHART, { name: 'shop-operator', namespace: 'shop-system' }), 'Deployment'));
    expect(operator.image).toBe(`shop/operator:${version}`);
    expect(one(await template(SHOP_CHART, { name: 'acme', namespace: 'shops' }), 'Shop').spec).toMatchObject({
      image: { repository: 'shop/platform', tag: version },
    });
  });
});

describe('shop', () => {
  it('renders one Shop named after the release, with the values as its spec and the chart appVersion as tag', async () => {
    const objects = await template(SHOP_CHART, { name: 'acme', namespace: 'shops' });
    expect(objects.map((object) => object.kind)).toEqual(['Shop']);
    const shop = one(objects, 'Shop');
    const chart = parse(await readFile(path.join(SHOP_CHART, 'Chart.yaml'), 'utf8')) as { appVersion: string };
    const {
      name: _name,
      image,
      ...values
    } = parse(await readFile(path.join(SHOP_CHART, 'values.yaml'), 'utf8')) as Record<string, Record<string, unknown>>;
    expect(shop).toMatchObject({ apiVersion: 'shop.dev/v1alpha1', metadata: { name: 'acme', namespace: 'shops' } });
    expect(shop.spec).toEqual({ ...values, image: { ...image, tag: chart.appVersion } });
  });

  it('puts fileStorage in the spec as given, and an empty one (no file storage) by default', async () => {
    const fileStorage = {
      provider: 's3',
      s3: { endpoint: 'https://s3.example.com', bucket: 'media', publicUrl: 'https://cdn.example.com' },
    };
    expect(one(await template(SHOP_CHART, { name: 'acme', namespace: 'shops', values: { fileStorage } }), 'Shop').spec).toMatchObject({
      fileStorage,
    });
    expect(one(await template(SHOP_CHART, { name: 'acme', namespace: 'shops' }), 'Shop').spec).toMatchObject({ fileStorage: {} });
  });

  it('takes the name and tag from values, and refuses a name the operator cannot prefix', async () => {
    const objects = await template(SHOP_CHART, {
      name: 'release',
      namespace: 'shops',
      values: { name: 'acme', image: { repository: 'registry.example.com/shop/platform', tag: '1.4.0' } },
    });
    expect(one(objects, 'Shop')).toMatchObject({ metadata: { name: 'acme' }, spec: { image: { tag: '1.4.0' } } });
    await expect(template(SHOP_CHART, { name: 'acme.eu', namespace: 'shops' })).rejects.toThrow(
      /"acme.eu" must be a DNS label of at most 54 characters/,
    );
  });
});
