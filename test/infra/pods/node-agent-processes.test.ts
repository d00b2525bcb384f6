// The node agent running Pods for real: the Deployment and Job controllers and the scheduler make the
// Pods, the agent runs their containers as processes of the built shop/platform image, and what the
// processes do (listen, pass probes, exit, write a termination message) is what the cluster sees.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, openBuiltImage } from '../../images/support/built-image.ts';
import type { ImageContainer } from '../../images/support/image-container.ts';
import { eventually } from '../../support/wait.ts';
import { startKubeCluster, type KubeCluster } from '../kube-cluster.ts';
import { freePort, isPortOpen } from '../proc.ts';

const IMAGE = 'shop/platform:test';
let image: ImageContainer;
let cluster: KubeCluster;

beforeAll(async () => {
  ({ container: image } = await openBuiltImage('platform'));
  cluster = await startKubeCluster({
    processes: {
      image: async (reference) => {
        if (reference !== IMAGE) throw new Error(`no image ${reference} here`);
        return image;
      },
    },
  });
  expect((await cluster.kube('POST', '/api/v1/namespaces', { metadata: { name: 'real' } })).status).toBe(201);
  // The serviceaccount controller creates the account whose token the agent mounts; with the
  // ServiceAccount admission off, nothing else makes a pod wait for it.
  await eventually(async () => expect((await cluster.kube('GET', '/api/v1/namespaces/real/serviceaccounts/default')).status).toBe(200));
  const secret = { metadata: { name: 'greeting' }, stringData: { text: 'hello from a Secret' } };
  expect((await cluster.kube('POST', '/api/v1/namespaces/real/secrets', secret)).status).toBe(201);
}, BUILD_TIMEOUT_MS);

afterAll(async () => {
  await cluster?.dispose();
  await image?.dispose();
});

interface Pod {
  metadata: { name: string; uid: string };
  status: {
    phase?: string;
    podIP?: string;
    containerStatuses?: Array<{ ready: boolean; state: Record<string, { exitCode?: number; message?: string }> }>;
  };
}

const podsOf = async (selector: string) =>
  (await cluster.kube<{ items: Pod[] }>('GET', `/api/v1/namespaces/real/pods?labelSelector=${selector}`)).body.items;

const server = (port: number) => ({
  name: 'web',
  image: IMAGE,
  command: ['node', '-e', `require('http').createServer((q, r) => r.end(process.env.GREETING)).listen(${port})`],
  env: [{ name: 'GREETING', valueFrom: { secretKeyRef: { name: 'greeting', key: 'text' } } }],
  ports: [{ containerPort: port }],
  readinessProbe: { httpGet: { path: '/', port }, periodSeconds: 1 },
  securityContext: { runAsUser: 10001, runAsGroup: 10001 },
});

describe('the node agent with real processes', () => {
  it('runs a Deployment until its probes pass, serves from the process, and stops it when the Deployment goes', async () => {
    const port = await freePort();
    const deployment = {
      metadata: { name: 'web' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [server(port)] } },
      },
    };
    expect((await cluster.kube('POST', '/apis/apps/v1/namespaces/real/deployments', deployment)).status).toBe(201);
    await eventually(
      async () =>
        expect(
          (await cluster.kube<{ status: { availableReplicas?: number } }>('GET', '/apis/apps/v1/namespaces/real/deployments/web')).body
            .status.availableReplicas,
        ).toBe(1),
      { timeoutMs: 60_000 },
    );

    // A second Pod on the same port runs beside it: each Pod has an address of its own.
    const beside = { metadata: { name: 'beside', labels: { app: 'beside' } }, spec: { containers: [server(port)] } };
    expect((await cluster.kube('POST', '/api/v1/namespaces/real/pods', beside)).status).toBe(201);
    await eventually(async () => expect((await podsOf('app=beside'))[0]?.status.containerStatuses?.[0]?.ready).toBe(true), {
      timeoutMs: 30_000,
    });
    const addresses = [...(await podsOf('app=web')), ...(await podsOf('app=beside'))].map((pod) => pod.status.podIP as string);
    expect(new Set(addresses).size).toBe(2);
    for (const address of addresses) expect(await (await fetch(`http://${address}:${port}/`)).text()).toBe('hello from a Secret');

    expect(
      (await cluster.kube('DELETE', '/apis/apps/v1/namespaces/real/deployments/web', { propagationPolicy: 'Foreground' })).status,
    ).toBe(200);
    await eventually(async () => expect(await podsOf('app=web')).toEqual([]), { timeoutMs: 60_000 });
    expect(await isPortOpen(port, addresses[0])).toBe(false);
    expect(await isPortOpen(port, addresses[1])).toBe(true);
  }, 120_000);

  it("completes a Job whose process exits 0, with the process's termination message on its pod", async () => {
    const job = {
      metadata: { name: 'once' },
      spec: {
        backoffLimit: 0,
        template: {
          spec: {
            restartPolicy: 'Never',
            containers: [
              {
                name: 'once',
                image: IMAGE,
                command: ['node', '-e', "require('fs').writeFileSync('/dev/termination-log', 'migrated to 42')"],
              },
            ],
          },
        },
      },
    };
    expect((await cluster.kube('POST', '/apis/batch/v1/namespaces/real/jobs', job)).status).toBe(201);
    await eventually(
      async () =>
        expect(
          (await cluster.kube<{ status: { succeeded?: number } }>('GET', '/apis/batch/v1/namespaces/real/jobs/once')).body.status.succeeded,
        ).toBe(1),
      { timeoutMs: 60_000 },
    );
    const [pod] = await podsOf('job-name=once');
    expect(pod?.status.containerStatuses?.[0]?.state).toMatchObject({ terminated: { exitCode: 0, message: 'migrated to 42' } });
  }, 90_000);
});
