// The operator as the chart deploys it: installed with `helm install`, run as a local process with
// the command and environment of the chart's Deployment and a token of the chart's ServiceAccount,
// so only the chart's RBAC rules let it act. A Shop installed with the shop chart must become Ready.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { eventually } from '../../test/support/wait.ts';
import { completeJob, markDeploymentAvailable } from '../../test/infra/workloads.ts';
import { startKubeCluster, type KubeCluster } from '../../test/infra/kube-cluster.ts';
import type { KubeApiServer } from '../../test/infra/kubernetes.ts';
import type { KubeRequest } from '../../test/infra/kube-client.ts';
import { freePort } from '../../test/infra/proc.ts';
import { helm, one, OPERATOR_CHART, REPO_ROOT, SHOP_CHART, valueArgs, type Release, type RenderedObject } from './support/helm.ts';
import { create, createNamespace } from './support/kube.ts';

interface PodSpec {
  serviceAccountName: string;
  terminationGracePeriodSeconds: number;
  containers: Array<{ command: string[]; env: Array<{ name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }> }>;
}

interface Mode {
  readonly release: string;
  readonly namespace: string;
  readonly shopNamespace: string;
  readonly values: Record<string, unknown>;
}

const MODES: Array<[string, Mode]> = [
  ['all namespaces (ClusterRole)', { release: 'shop-operator', namespace: 'shop-system', shopNamespace: 'shops', values: {} }],
  // The CRD comes with the first release; a second one leaves it out.
  [
    'one namespace (Role)',
    {
      release: 'scoped',
      namespace: 'scoped-system',
      shopNamespace: 'scoped-shops',
      values: { watchNamespace: 'scoped-shops', crd: { install: false } },
    },
  ],
  [
    'all namespaces, Secrets in the Shop namespace only (rbac.secretNamespaces)',
    {
      release: 'narrow',
      namespace: 'narrow-system',
      shopNamespace: 'narrow-shops',
      values: { rbac: { create: true, secretNamespaces: ['narrow-shops'] }, crd: { install: false } },
    },
  ],
];

describe("the operator with the chart's ServiceAccount and RBAC, on a real API server", () => {
  let cluster: KubeCluster | undefined;
  let server: KubeApiServer;
  let kube: KubeRequest;
  const processes = new Set<ChildProcess>();
  const tempDirs: string[] = [];

  beforeAll(async () => {
    // The chart installs the CRD. The node agent holds every pod until the test lets it end or run.
    cluster = await startKubeCluster({ defaultOutcome: 'pending' });
    ({ server, kube } = cluster);
  }, 180_000);

  afterAll(async () => {
    for (const child of processes) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await cluster?.dispose();
    await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  /** `helm install` for real, as the cluster admin; resolves with the release's objects. */
  const install = async (chart: string, { name, namespace, values = {} }: Release): Promise<RenderedObject[]> => {
    const target = ['--namespace', namespace, '--kubeconfig', server.kubeconfigPath()];
    const installed = await helm(['install', name, chart, ...target, ...valueArgs(values)]);
    if (installed.code !== 0) throw new Error(`helm install ${name}: ${installed.stderr}`);
    const manifest = await helm(['get', 'manifest', name, ...target]);
    return parseAllDocuments(manifest.stdout).flatMap((document) => (document.toJS() as RenderedObject | null) ?? []);
  };

  /** A kubeconfig for the ServiceAccount: a token from the TokenRequest API, the server's CA. */
  const serviceAccountKubeconfig = async (namespace: string, serviceAccount: string): Promise<string> => {
    const requested = await kube<{ status: { token: string } }>(
      'POST',
      `/api/v1/namespaces/${namespace}/serviceaccounts/${serviceAccount}/token`,
      {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: { expirationSeconds: 3600 },
      },
    );
    expect(requested.status).toBe(201);
    const config = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        { name: 'test', cluster: { server: server.url, 'certificate-authority-data': Buffer.from(server.caData).toString('base64') } },
      ],
      users: [{ name: serviceAccount, user: { token: requested.body.status.token } }],
      contexts: [{ name: 'test', context: { cluster: 'test', user: serviceAccount, namespace } }],
      'current-context': 'test',
    };
    const dir = await mkdtemp(path.join(tmpdir(), 'shop-charts-operator-'));
    tempDirs.push(dir);
    const file = path.join(dir, 'kubeconfig');
    await writeFile(file, JSON.stringify(config), { mode: 0o600 });
    return file;
  };

  const allowed = async (user: string, attributes: Record<string, string>): Promise<boolean> => {
    const [, namespace] = user.split(':');
    const review = await kube<{ status: { allowed: boolean } }>('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user,
        groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
        resourceAttributes: attributes,
      },
    });
    expect(review.status).toBe(201);
    return review.body.status.allowed;
  };

  for (const [what, mode] of MODES) {
    it(`${what}: reconciles a Shop to Ready, is allowed nothing more, and releases its Lease on SIGTERM`, async () => {
      expect(
        existsSync(path.join(REPO_ROOT, 'operator/src/main.ts')),
        'operator/src/main.ts, the command of the chart, does not exist yet',
      ).toBe(true);
      const { namespace, shopNamespace } = mode;
      await createNamespace(kube, namespace);
      await createNamespace(kube, shopNamespace);
      const metricsPort = await freePort();
      const objects = await install(OPERATOR_CHART, {
        name: mode.release,
        namespace,
        values: { ...mode.values, metrics: { port: metricsPort } },
      });
      const pod = (one(objects, 'Deployment').spec as { template: { spec: PodSpec } }).template.spec;
      const [container] = pod.containers;
      if (!container) throw new Error('the Deployment has no container');

      // What the kubelet would do: the downward API, and the ServiceAccount's token.
      const podName = `${mode.release}-5d8f7c9b4-x2x7q`;
      const fields: Record<string, string> = { 'metadata.name': podName, 'metadata.namespace': namespace };
      const env = Object.fromEntries(
        container.env.map(({ name, value, valueFrom }) => {
          const resolved = value ?? fields[valueFrom?.fieldRef?.fieldPath ?? ''];
          if (resolved === undefined) throw new Error(`cannot resolve ${name}`);
          return [name, resolved];
        }),
      );
      const kubeconfig = await serviceAccountKubeconfig(namespace, pod.serviceAccountName);
      const [command, ...args] = container.command;
      expect(command).toBe('node');
      const child = spawn(process.execPath, args, {
        cwd: REPO_ROOT,
        env: { PATH: process.env.PATH, ...env, KUBECONFIG: kubeconfig },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      processes.add(child);
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      onTestFailed(() => console.log(`operator output (${what}):\n${output}`));

      await eventually(async () => expect((await fetch(`http://127.0.0.1:${metricsPort}/healthz`)).status).toBe(200), {
        timeoutMs: 30_000,
        intervalMs: 200,
      });

      // The Secrets the shop chart's default values name, then the Shop itself.
      for (const [name, key] of [
        ['shop-database', 'url'],
        ['shop-cache', 'url'],
        ['shop-kafka', 'bootstrap-servers'],
      ] as const) {
        const secret = {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name, namespace: shopNamespace },
          stringData: { [key]: `${name}.example:1234` },
        };
        expect((await create(kube, secret)).status).toBe(201);
      }
      await install(SHOP_CHART, {
        name: 'acme',
        namespace: shopNamespace,
        values: { image: { repository: 'registry.example.com/shop/platform', tag: '1.4.0' } },
      });

      const apps = `/apis/apps/v1/namespaces/${shopNamespace}/deployments?labelSelector=app.kubernetes.io/instance=acme`;
      const job = await eventually(async () => {
        const jobs = await kube<{ items: Array<{ metadata: { name: string } }> }>(
          'GET',
          `/apis/batch/v1/namespaces/${shopNamespace}/jobs?labelSelector=app.kubernetes.io/instance=acme`,
        );
        expect(jobs.body.items).toHaveLength(1);
        return jobs.body.items[0]?.metadata.name as string;
      });
      expect((await kube<{ items: unknown[] }>('GET', apps)).body.items).toEqual([]); // nothing runs before the migrations
      // The migration's pod ends, then the Deployments' pods run.
      await completeJob(kube, shopNamespace, job);
      await eventually(
        async () => {
          const deployments = await kube<{ items: Array<{ metadata: { name: string }; status?: { availableReplicas?: number } }> }>(
            'GET',
            apps,
          );
          for (const deployment of deployments.body.items) {
            if (!deployment.status?.availableReplicas) await markDeploymentAvailable(kube, shopNamespace, deployment.metadata.name);
          }
          const shop = await kube<{ status?: { phase?: string } }>('GET', `/apis/shop.dev/v1alpha1/namespaces/${shopNamespace}/shops/acme`);
          expect(shop.body.status?.phase).toBe('Ready');
        },
        { timeoutMs: 30_000, intervalMs: 250 },
      );

      const configMaps = await kube<{ items: Array<{ metadata: { name: string } }> }>(
        'GET',
        `/api/v1/namespaces/${shopNamespace}/configmaps?labelSelector=app.kubernetes.io/instance=acme`,
      );
      expect(configMaps.body.items.map((configMap) => configMap.metadata.name)).toEqual([
        expect.stringMatching(/^acme-config-[0-9a-f]{10}$/),
      ]);
      for (const object of [
        'api/v1/services/acme-api',
        'apis/policy/v1/poddisruptionbudgets/acme-api',
        'api/v1/secrets/acme-generated-keys',
      ]) {
        const [prefix, version, ...rest] = object.split('/');
        const group = prefix === 'api' ? `api/${version}` : `apis/${version}/${rest.shift()}`;
        expect([object, (await kube('GET', `/${group}/namespaces/${shopNamespace}/${rest.join('/')}`)).status]).toEqual([object, 200]);
      }
      const events = await kube<{ items: Array<{ reason: string }> }>(
        'GET',
        `/api/v1/namespaces/${shopNamespace}/events?fieldSelector=involvedObject.name=acme`,
      );
      expect(events.body.items.map((event) => event.reason)).toContain('Ready');
      const leasePath = `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases/${env.LEASE_NAME}`;
      expect((await kube<{ spec: { holderIdentity?: string } }>('GET', leasePath)).body.spec.holderIdentity).toBe(podName);
      expect(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()).toMatch(/^shop_operator_leader 1$/m);

      // Nothing beyond the rules: the API server's own answer for the ServiceAccount.
      const user = `system:serviceaccount:${namespace}:${pod.serviceAccountName}`;
      const denied: Array<Record<string, string>> = [
        { namespace: shopNamespace, verb: 'delete', resource: 'secrets', name: 'acme-generated-keys' },
        { namespace: shopNamespace, verb: 'update', group: 'apps', resource: 'deployments', name: 'acme-api' },
        { namespace: shopNamespace, verb: 'delete', group: 'apps', resource: 'replicasets' },
        { namespace: shopNamespace, verb: 'create', resource: 'pods' },
        { namespace: shopNamespace, verb: 'get', resource: 'configmaps', name: 'acme-config' },
        { namespace: shopNamespace, verb: 'update', group: 'shop.dev', resource: 'shops', name: 'acme' },
        { namespace: shopNamespace, verb: 'delete', group: 'shop.dev', resource: 'shops', name: 'acme' },
        { namespace, verb: 'get', group: 'coordination.k8s.io', resource: 'leases', name: 'someone-else' },
        { namespace: 'default', verb: 'create', group: 'coordination.k8s.io', resource: 'leases' },
        ...(mode.values.watchNamespace
          ? [
              { namespace: 'default', verb: 'create', group: 'batch', resource: 'jobs' },
              { verb: 'list', group: 'shop.dev', resource: 'shops' },
            ]
          : []),
        ...('rbac' in mode.values ? [{ namespace: 'default', verb: 'get', resource: 'secrets', name: 'shop-database' }] : []),
      ];
      for (const attributes of denied) expect([attributes, await allowed(user, attributes)]).toEqual([attributes, false]);

      child.kill('SIGTERM');
      const timeout = new Promise<'timeout'>((resolve) =>
        setTimeout(() => resolve('timeout'), pod.terminationGracePeriodSeconds * 1000).unref(),
      );
      expect(await Promise.race([exited, timeout])).toBe(0);
      expect((await kube<{ spec: { holderIdentity?: string } }>('GET', leasePath)).body.spec.holderIdentity).toBeUndefined();
      // With rbac.secretNamespaces the operator still sees the Shops of the other tests' namespaces, and
      // may not read their Secrets: those, and only those, are refused.
      const refused = output.split('\n').filter((line) => /forbidden|HTTP 403/i.test(line));
      const elsewhere = (line: string) =>
        'rbac' in mode.values && !line.includes(`"shop":"${shopNamespace}/`) && /cannot get resource \\"secrets\\"/.test(line);
      expect(refused.filter((line) => !elsewhere(line))).toEqual([]);
    }, 120_000);
  }

  it('helm upgrade applies a changed CRD, and helm uninstall leaves it and the Shops in place', async () => {
    const crdPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/shops.shop.dev';
    const descriptionOf = async () =>
      (await kube<{ spec: { versions: Array<{ schema: { openAPIV3Schema: { description: string } } }> } }>('GET', crdPath)).body.spec
        .versions[0]?.schema.openAPIV3Schema.description;
    const chart = await mkdtemp(path.join(tmpdir(), 'shop-operator-chart-'));
    tempDirs.push(chart);
    await cp(OPERATOR_CHART, chart, { recursive: true });
    const crdFile = path.join(chart, 'crd/shops.shop.dev.yaml');
    const crd = parse(await readFile(crdFile, 'utf8')) as {
      spec: { versions: Array<{ schema: { openAPIV3Schema: { description: string } } }> };
    };
    const schema = crd.spec.versions[0]?.schema.openAPIV3Schema;
    if (!schema) throw new Error('the CRD has no schema');
    schema.description = 'A newer description.';
    await writeFile(crdFile, stringify(crd));

    const target = ['--namespace', 'shop-system', '--kubeconfig', server.kubeconfigPath()];
    const upgraded = await helm(['upgrade', 'shop-operator', chart, '--reuse-values', ...target]);
    expect([upgraded.code, upgraded.stderr]).toEqual([0, '']);
    expect(await descriptionOf()).toBe('A newer description.');

    const uninstalled = await helm(['uninstall', 'shop-operator', ...target]);
    expect(uninstalled.code).toBe(0);
    expect(uninstalled.stdout).toMatch(/kept due to the resource policy/);
    expect(await descriptionOf()).toBe('A newer description.');
    expect((await kube('GET', '/apis/shop.dev/v1alpha1/namespaces/shops/shops/acme')).status).toBe(200);
  });
});
