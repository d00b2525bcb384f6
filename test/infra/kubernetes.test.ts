import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HELM_VERSION, KUBERNETES_VERSION } from './layout.ts';
import { helmBinary, startKubeApiServer, type KubeApiServer } from './kubernetes.ts';
import { kubeClient, type KubeRequest } from './kube-client.ts';
import { withEmptyInfraCache } from './empty-cache.ts';
import { connectOutcome } from './proc.ts';

const execFileAsync = promisify(execFile);

let server: KubeApiServer | undefined;
let kube: KubeRequest;

function api(): KubeApiServer {
  if (!server) throw new Error('the API server did not start');
  return server;
}

beforeAll(async () => {
  server = await startKubeApiServer();
  kube = kubeClient(server);
}, 180_000);

afterAll(async () => {
  await server?.dispose();
});

interface ConfigMap {
  metadata: { name: string; namespace: string; labels?: Record<string, string> };
  data?: Record<string, string>;
}

describe('kube-apiserver on kine', () => {
  it('answers /readyz over verified TLS and reports its real version', async () => {
    const ready = await kube<string>('GET', '/readyz?verbose');
    expect(ready.status).toBe(200);
    expect(ready.body).toContain('[+]etcd ok');
    expect(ready.body).toContain('readyz check passed');

    const version = await kube<{ gitVersion: string }>('GET', '/version');
    expect(version.body.gitVersion).toBe(`v${KUBERNETES_VERSION}`);
  });

  it('authenticates with the token: a wrong one is rejected', async () => {
    const reply = await kube('GET', '/api/v1/namespaces', undefined, 'not-the-token');
    expect(reply.status).toBe(401);
  });

  it('creates a namespace and a ConfigMap and lists it back', async () => {
    const namespace = 'infra-test';
    const created = await kube('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: namespace },
    });
    expect(created.status).toBe(201);

    const configMap = await kube('POST', `/api/v1/namespaces/${namespace}/configmaps`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'greeting', labels: { app: 'infra-test' } },
      data: { message: 'hello kubernetes' },
    });
    expect(configMap.status).toBe(201);

    const list = await kube<{ items: ConfigMap[] }>('GET', `/api/v1/namespaces/${namespace}/configmaps?labelSelector=app%3Dinfra-test`);
    expect(list.status).toBe(200);
    expect(list.body.items.map((item) => [item.metadata.name, item.data])).toEqual([['greeting', { message: 'hello kubernetes' }]]);
  });

  it('runs the cached helm CLI: version, and an install through the kubeconfig', async () => {
    const helm = helmBinary();
    const { stdout } = await execFileAsync(helm, ['version', '--short']);
    expect(stdout.trim()).toMatch(new RegExp(`^v${HELM_VERSION.replaceAll('.', '\\.')}`));

    // A one-template chart: installing it proves the kubeconfig works for Helm against this server.
    const chartDir = await mkdtemp(join(tmpdir(), 'shop-infra-chart-'));
    try {
      await mkdir(join(chartDir, 'templates'));
      await writeFile(join(chartDir, 'Chart.yaml'), 'apiVersion: v2\nname: infra-probe\nversion: 0.1.0\n');
      await writeFile(
        join(chartDir, 'templates', 'configmap.yaml'),
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-config\ndata:\n  kubeVersion: {{ .Capabilities.KubeVersion.Version | quote }}\n',
      );
      const helmEnv = { ...process.env, HELM_CACHE_HOME: join(chartDir, '.helm') };
      const kubeArgs = ['--kubeconfig', api().kubeconfigPath(), '--namespace', 'default'];
      await execFileAsync(helm, ['install', 'probe', chartDir, ...kubeArgs], { env: helmEnv });
      const installed = await kube<ConfigMap>('GET', '/api/v1/namespaces/default/configmaps/probe-config');
      expect(installed.status).toBe(200);
      expect(installed.body.data).toEqual({ kubeVersion: `v${KUBERNETES_VERSION}` });

      const { stdout: releases } = await execFileAsync(helm, ['list', '--output', 'json', ...kubeArgs], { env: helmEnv });
      expect((JSON.parse(releases) as { name: string; status: string }[]).map((r) => [r.name, r.status])).toEqual([['probe', 'deployed']]);
    } finally {
      await rm(chartDir, { recursive: true, force: true });
    }
  });

  it('stop() ends both processes; start() brings them back with the data', async () => {
    const before = api().pids();
    expect(before.kine).toBeTypeOf('number');
    expect(before.apiServer).toBeTypeOf('number');

    await api().stop();
    expect(api().pids()).toEqual({ kine: undefined, apiServer: undefined });
    expect(await connectOutcome(Number(new URL(api().url).port))).toBe('ECONNREFUSED');

    await api().start();
    const after = api().pids();
    expect(after.apiServer).not.toBe(before.apiServer);
    const configMap = await kube<ConfigMap>('GET', '/api/v1/namespaces/infra-test/configmaps/greeting');
    expect(configMap.status).toBe(200);
    expect(configMap.body.data).toEqual({ message: 'hello kubernetes' });
  }, 120_000);
});

describe('unprovisioned Kubernetes tools', () => {
  it('fail with the command that provisions them', async () => {
    await withEmptyInfraCache(async () => {
      await expect(startKubeApiServer()).rejects.toThrow('node test/infra/provision.ts');
      expect(() => helmBinary()).toThrow('node test/infra/provision.ts');
    });
  });
});
