// The pod runtime on the built shop/platform image: containers run for real as processes of its root
// filesystem, with the pod's command, environment (Secrets and the downward API), user and working
// directory, in a network of its own; probes decide started and ready; crashes restart with back-off;
// stop ends the processes.
import { createServer } from 'node:net';
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, openBuiltImage } from '../../images/support/built-image.ts';
import type { ImageContainer } from '../../images/support/image-container.ts';
import { eventually } from '../../support/wait.ts';
import { freePort, isPortOpen } from '../proc.ts';
import { openPodNetworks } from './pod-network.ts';
import { startPod, type PodRunnerOptions, type PodStatus, type RunningPod } from './pod-runner.ts';

let image: ImageContainer;
const running: RunningPod[] = [];

beforeAll(async () => {
  ({ container: image } = await openBuiltImage('platform'));
}, BUILD_TIMEOUT_MS);

afterEach(async () => {
  await Promise.all(running.splice(0).map((pod) => pod.stop()));
});

afterAll(async () => {
  await image?.dispose();
});

const SECRETS: Record<string, Record<string, string>> = { 'shop-database': { url: 'postgresql://db.example/shop' } };

function podOf(containers: V1Container[], spec: Partial<NonNullable<V1Pod['spec']>> = {}): V1Pod {
  return {
    metadata: { name: 'acme-api-7d9c', namespace: 'shops', uid: 'a1b2' },
    spec: { securityContext: { runAsUser: 10001, runAsGroup: 10001 }, volumes: [{ name: 'tmp', emptyDir: {} }], ...spec, containers },
  };
}

async function run(
  pod: V1Pod,
  secrets: Record<string, Record<string, string>> = SECRETS,
  serviceAccount?: PodRunnerOptions['serviceAccount'],
  hostPorts: number[] = [],
): Promise<RunningPod> {
  const started = await startPod(pod, {
    hostPorts,
    ...(serviceAccount ? { serviceAccount } : {}),
    image: async (reference) => {
      expect(reference).toBe('shop/platform:test');
      return image;
    },
    lookup: async (kind, name) => (kind === 'Secret' ? secrets[name] : undefined),
    backOff: { initialMs: 300, maxMs: 1200 },
    onChange: () => undefined,
  });
  running.push(started);
  return started;
}

const container = (fields: Partial<V1Container>): V1Container => ({
  name: 'main',
  image: 'shop/platform:test',
  volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
  ...fields,
});
const node = (script: string) => ({ command: ['node', '-e', script] });
const statusOf = (pod: RunningPod): PodStatus => pod.status();
const only = (status: PodStatus) => status.containerStatuses[0] as PodStatus['containerStatuses'][number];

describe('the pod runtime', () => {
  it('runs a run-to-completion pod with the env, user and working directory asked, and reports its termination message', async () => {
    const script =
      "require('fs').writeFileSync('/dev/termination-log', JSON.stringify({ url: process.env.DATABASE_URL, pod: process.env.POD, uid: process.getuid(), cwd: process.cwd(), derived: process.env.DERIVED }))";
    const pod = await run(
      podOf(
        [
          container({
            ...node(script),
            workingDir: '/app/services',
            env: [
              { name: 'DATABASE_URL', valueFrom: { secretKeyRef: { name: 'shop-database', key: 'url' } } },
              { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
              { name: 'DERIVED', value: '$(POD)-x' },
            ],
          }),
        ],
        { restartPolicy: 'Never' },
      ),
    );
    const status = await eventually(async () => {
      const current = statusOf(pod);
      expect(current.phase).toBe('Succeeded');
      return current;
    });
    const state = only(status).state;
    if (!('terminated' in state)) throw new Error('not terminated');
    expect(state.terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
    expect(JSON.parse(state.terminated.message ?? '')).toEqual({
      url: 'postgresql://db.example/shop',
      pod: 'acme-api-7d9c',
      uid: 10001,
      cwd: '/app/services',
      derived: 'acme-api-7d9c-x',
    });
    expect(only(status).restartCount).toBe(0);
  });

  it('restarts a crashing container after a back-off, in CrashLoopBackOff meanwhile', async () => {
    const pod = await run(podOf([container(node("console.error('no DATABASE_URL'); process.exit(3)"))]));
    const status = await eventually(
      async () => {
        const current = only(statusOf(pod));
        expect(current.restartCount).toBeGreaterThanOrEqual(2);
        expect(current.state).toMatchObject({ waiting: { reason: 'CrashLoopBackOff' } });
        return current;
      },
      { timeoutMs: 60_000 },
    );
    expect(status.lastState).toMatchObject({ terminated: { exitCode: 3, reason: 'Error' } });
    expect(statusOf(pod).phase).toBe('Running');
    expect(statusOf(pod).conditions.find((condition) => condition.type === 'Ready')?.status).toBe('False');
  });

  it('with FallbackToLogsOnError, a failed container without a message reports the end of its output', async () => {
    const pod = await run(
      podOf(
        [
          container({
            ...node("console.error('migration 42 failed: relation exists'); process.exit(1)"),
            terminationMessagePolicy: 'FallbackToLogsOnError',
          }),
        ],
        { restartPolicy: 'Never' },
      ),
    );
    await eventually(async () => {
      expect(statusOf(pod).phase).toBe('Failed');
      expect(only(statusOf(pod)).state).toMatchObject({
        terminated: { exitCode: 1, message: expect.stringContaining('migration 42 failed: relation exists') },
      });
    });
  });

  it('runs the image entry point (the api) until its probes pass, and ends it on stop', async () => {
    const port = await freePort();
    const probe = { httpGet: { path: '/health', port: 'http' }, periodSeconds: 1, failureThreshold: 60 };
    const pod = await run(
      podOf([
        container({
          env: [{ name: 'PORT', value: String(port) }],
          ports: [{ name: 'http', containerPort: port }],
          startupProbe: probe,
          readinessProbe: probe,
        }),
      ]),
    );
    expect(statusOf(pod)).toMatchObject({ podIP: pod.ip, podIPs: [{ ip: pod.ip }] });
    expect(only(statusOf(pod)).started).toBe(false);
    await eventually(
      async () => {
        const status = statusOf(pod);
        expect(status.conditions.find((condition) => condition.type === 'Ready')?.status).toBe('True');
        expect(only(status)).toMatchObject({ started: true, ready: true, restartCount: 0 });
      },
      { timeoutMs: 90_000 },
    );
    // It listens in its own network: at its address, not on the host's.
    expect(await isPortOpen(port, pod.ip)).toBe(true);
    expect(await isPortOpen(port)).toBe(false);
    await pod.stop();
    running.splice(running.indexOf(pod), 1);
    // Its network goes only once no process is left in it.
    expect(await openPodNetworks()).toEqual([]);
  }, 120_000);

  it('gives each pod an address of its own, so two listen on one port, and leads its 127.0.0.1 to the servers on the host', async () => {
    const host = createServer((socket) => socket.end(`host server, reached from ${socket.remoteAddress}`)).listen(0, '127.0.0.1');
    await new Promise((resolve) => host.once('listening', resolve));
    const hostPort = (host.address() as { port: number }).port;
    try {
      const port = await freePort();
      const script = `
        require('net').connect(${hostPort}, '127.0.0.1').on('data', (reply) => require('fs').writeFileSync('/dev/termination-log', String(reply)));
        require('http').createServer((q, r) => r.end(process.env.NAME)).listen(${port});`;
      const pods = await Promise.all(
        ['one', 'two'].map((name) =>
          run(
            podOf([container({ ...node(script), env: [{ name: 'NAME', value: name }], ports: [{ containerPort: port }] })]),
            SECRETS,
            undefined,
            [hostPort],
          ),
        ),
      );
      expect(new Set(pods.map((pod) => pod.ip)).size).toBe(2);
      for (const [index, pod] of pods.entries()) {
        const answer = await eventually(async () => (await fetch(`http://${pod.ip}:${port}/`)).text(), { timeoutMs: 30_000 });
        expect(answer).toBe(['one', 'two'][index]);
        await pod.stop();
        running.splice(running.indexOf(pod), 1);
        // Stopped, its container's message says what the host server answered it: a loopback client, as
        // PostgreSQL and Redis trust.
        expect(only(statusOf(pod)).state).toMatchObject({ terminated: { message: 'host server, reached from 127.0.0.1' } });
      }
    } finally {
      host.close();
    }
  }, 90_000);

  it('kills and restarts a container whose liveness probe fails', async () => {
    const port = await freePort();
    const server = `require('http').createServer((q, r) => { r.statusCode = 500; r.end(); }).listen(${port})`;
    const pod = await run(
      podOf([
        container({ ...node(server), livenessProbe: { httpGet: { path: '/healthz', port }, periodSeconds: 1, failureThreshold: 2 } }),
      ]),
    );
    const status = await eventually(
      async () => {
        const current = only(statusOf(pod));
        expect(current.restartCount).toBeGreaterThanOrEqual(1);
        return current;
      },
      { timeoutMs: 60_000 },
    );
    expect(status.lastState).toMatchObject({
      terminated: { message: expect.stringContaining('Liveness probe failed: HTTP probe failed with statuscode: 500') },
    });
  }, 90_000);

  it('waits in CreateContainerConfigError while a Secret is missing, and starts once it exists', async () => {
    const secrets: Record<string, Record<string, string>> = {};
    const pod = await run(
      podOf(
        [
          container({
            ...node("require('fs').writeFileSync('/dev/termination-log', process.env.URL)"),
            env: [{ name: 'URL', valueFrom: { secretKeyRef: { name: 'late', key: 'url' } } }],
          }),
        ],
        { restartPolicy: 'Never' },
      ),
      secrets,
    );
    await eventually(async () =>
      expect(only(statusOf(pod)).state).toEqual({ waiting: { reason: 'CreateContainerConfigError', message: 'secret "late" not found' } }),
    );
    expect(statusOf(pod).phase).toBe('Pending');
    secrets.late = { url: 'redis://cache.example' };
    await eventually(async () =>
      expect(only(statusOf(pod)).state).toMatchObject({ terminated: { exitCode: 0, message: 'redis://cache.example' } }),
    );
  });

  it("gives a pod its ServiceAccount's token and the API server's address, unless it opts out", async () => {
    const account: PodRunnerOptions['serviceAccount'] = async () => ({
      files: { token: 'a-token' },
      env: { KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: '6443' },
    });
    const script =
      "const fs = require('fs'); const at = '/var/run/secrets/kubernetes.io/serviceaccount/token'; fs.writeFileSync('/dev/termination-log', [fs.existsSync(at) ? fs.readFileSync(at, 'utf8') : '-', process.env.KUBERNETES_SERVICE_HOST ?? '-'].join(' '))";
    const mounted = await run(podOf([container(node(script))], { restartPolicy: 'Never' }), SECRETS, account);
    const optedOut = await run(
      podOf([container(node(script))], { restartPolicy: 'Never', automountServiceAccountToken: false }),
      SECRETS,
      account,
    );
    await eventually(async () => {
      expect(only(statusOf(mounted)).state).toMatchObject({ terminated: { exitCode: 0, message: 'a-token 127.0.0.1' } });
      expect(only(statusOf(optedOut)).state).toMatchObject({ terminated: { exitCode: 0, message: '- -' } });
    });
  });
});
