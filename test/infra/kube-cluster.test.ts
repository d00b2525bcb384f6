import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/wait.ts';
import { withEmptyInfraCache } from './empty-cache.ts';
import { startKubeCluster, type KubeCluster } from './kube-cluster.ts';
import { startKubeControllers } from './kube-controllers.ts';
import { OUTCOME_ANNOTATION, TERMINATION_MESSAGE_ANNOTATION, type PodOutcome } from './node-agent.ts';
import { completeJob, failJob, markDeploymentAvailable } from './workloads.ts';

let cluster: KubeCluster;
let namespaces = 0;

beforeAll(async () => {
  cluster = await startKubeCluster();
}, 180_000);

afterAll(async () => {
  await cluster?.dispose();
});

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

interface ContainerStatus {
  ready: boolean;
  restartCount: number;
  state: Record<string, { reason?: string; exitCode?: number; message?: string }>;
  lastState?: { terminated?: { exitCode: number } };
}

interface Pod {
  metadata: { name: string; ownerReferences?: Array<{ kind: string }> };
  spec: { nodeName?: string };
  status: { phase: string; podIP?: string; conditions?: Condition[]; containerStatuses?: ContainerStatus[] };
}

async function namespace(labels: Record<string, string> = {}): Promise<string> {
  namespaces += 1;
  const name = `cluster-${namespaces}`;
  expect((await cluster.kube('POST', '/api/v1/namespaces', { metadata: { name, labels } })).status).toBe(201);
  return name;
}

const template = (app: string, annotations: Record<string, string> = {}, restartPolicy = 'Always') => ({
  metadata: { labels: { app }, annotations },
  spec: { restartPolicy, containers: [{ name: app, image: `registry.example.com/${app}:1` }] },
});

async function createDeployment(ns: string, name: string, replicas: number, annotations: Record<string, string> = {}): Promise<void> {
  const body = { metadata: { name }, spec: { replicas, selector: { matchLabels: { app: name } }, template: template(name, annotations) } };
  const reply = await cluster.kube('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, body);
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
}

async function createJob(ns: string, name: string, outcome: PodOutcome, message?: string): Promise<void> {
  const annotations = { [OUTCOME_ANNOTATION]: outcome, ...(message === undefined ? {} : { [TERMINATION_MESSAGE_ANNOTATION]: message }) };
  const body = { metadata: { name }, spec: { backoffLimit: 0, template: template(name, annotations, 'Never') } };
  const reply = await cluster.kube('POST', `/apis/batch/v1/namespaces/${ns}/jobs`, body);
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
}

async function pods(ns: string, app: string): Promise<Pod[]> {
  const { body } = await cluster.kube<{ items: Pod[] }>('GET', `/api/v1/namespaces/${ns}/pods?labelSelector=app%3D${app}`);
  return body.items;
}

async function deploymentStatus(ns: string, name: string): Promise<{ availableReplicas?: number; conditions?: Condition[] }> {
  const { body } = await cluster.kube<{ status: { availableReplicas?: number; conditions?: Condition[] } }>(
    'GET',
    `/apis/apps/v1/namespaces/${ns}/deployments/${name}`,
  );
  return body.status;
}

async function jobConditions(ns: string, name: string): Promise<Condition[]> {
  const { body } = await cluster.kube<{ status: { conditions?: Condition[] } }>('GET', `/apis/batch/v1/namespaces/${ns}/jobs/${name}`);
  return body.status.conditions ?? [];
}

describe('the controllers, the scheduler and the node agent', () => {
  it("roll out a Deployment: a ReplicaSet, Pods bound to the agent's Node, running and ready, and the Deployment available", async () => {
    const ns = await namespace();
    await createDeployment(ns, 'web', 2);
    const status = await eventually(async () => {
      const current = await deploymentStatus(ns, 'web');
      expect(current.availableReplicas).toBe(2);
      return current;
    });
    expect(status.conditions).toContainEqual(expect.objectContaining({ type: 'Available', status: 'True' }));
    const running = await pods(ns, 'web');
    expect(running).toHaveLength(2);
    for (const pod of running) {
      expect(pod.metadata.ownerReferences?.[0]?.kind).toBe('ReplicaSet');
      expect(pod.spec.nodeName).toBe(cluster.agent.nodeName);
      expect(pod.status).toMatchObject({
        phase: 'Running',
        podIP: '127.0.0.1',
        containerStatuses: [expect.objectContaining({ ready: true, state: { running: expect.anything() } })],
      });
      expect(pod.status.conditions).toContainEqual(expect.objectContaining({ type: 'Ready', status: 'True' }));
    }
  });

  it('complete a Job whose pod exits 0, with its termination message', async () => {
    const ns = await namespace();
    await createJob(ns, 'migrate', 'exit 0', 'applied 3 migrations');
    await eventually(async () =>
      expect(await jobConditions(ns, 'migrate')).toContainEqual(expect.objectContaining({ type: 'Complete', status: 'True' })),
    );
    const [pod] = await pods(ns, 'migrate');
    expect(pod?.status.phase).toBe('Succeeded');
    expect(pod?.status.containerStatuses?.[0]?.state.terminated).toMatchObject({
      exitCode: 0,
      reason: 'Completed',
      message: 'applied 3 migrations',
    });
  });

  it('fail a Job whose pod exits 1 once its backoff limit is reached', async () => {
    const ns = await namespace();
    await createJob(ns, 'broken', 'exit 1');
    await eventually(async () =>
      expect(await jobConditions(ns, 'broken')).toContainEqual(
        expect.objectContaining({ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded' }),
      ),
    );
    expect((await pods(ns, 'broken'))[0]?.status.phase).toBe('Failed');
  });

  it('report a container that keeps exiting as CrashLoopBackOff, its restart count growing, and the Deployment unavailable', async () => {
    const ns = await namespace();
    await createDeployment(ns, 'crashing', 1, { [OUTCOME_ANNOTATION]: 'exit 2' });
    const container = await eventually(async () => {
      const [status] = (await pods(ns, 'crashing'))[0]?.status.containerStatuses ?? [];
      expect(status?.restartCount).toBeGreaterThanOrEqual(2);
      return status;
    });
    expect(container).toMatchObject({
      ready: false,
      state: { waiting: { reason: 'CrashLoopBackOff' } },
      lastState: { terminated: { exitCode: 2 } },
    });
    expect((await deploymentStatus(ns, 'crashing')).availableReplicas ?? 0).toBe(0);
  });

  it('leave a pod whose image cannot be pulled waiting, and one told to never start in ContainerCreating', async () => {
    const ns = await namespace();
    await createDeployment(ns, 'unpullable', 1, { [OUTCOME_ANNOTATION]: 'ImagePullBackOff' });
    await createDeployment(ns, 'held', 1, { [OUTCOME_ANNOTATION]: 'pending' });
    for (const [app, reason] of [
      ['unpullable', 'ImagePullBackOff'],
      ['held', 'ContainerCreating'],
    ] as const) {
      await eventually(async () => {
        const [pod] = await pods(ns, app);
        expect(pod?.status).toMatchObject({
          phase: 'Pending',
          containerStatuses: [expect.objectContaining({ state: { waiting: expect.objectContaining({ reason }) } })],
        });
      });
    }
  });

  it('delete what an owner leaves behind through the garbage collector, a foreground deletion waiting for the pods the agent finishes', async () => {
    const ns = await namespace();
    await createDeployment(ns, 'owner', 2);
    await eventually(async () => expect((await deploymentStatus(ns, 'owner')).availableReplicas).toBe(2));
    const deleted = await cluster.kube('DELETE', `/apis/apps/v1/namespaces/${ns}/deployments/owner`, { propagationPolicy: 'Foreground' });
    expect(deleted.status).toBe(200);
    await eventually(async () => {
      expect((await cluster.kube('GET', `/apis/apps/v1/namespaces/${ns}/deployments/owner`)).status).toBe(404);
      const { body } = await cluster.kube<{ items: unknown[] }>('GET', `/apis/apps/v1/namespaces/${ns}/replicasets`);
      expect(body.items).toEqual([]);
      expect(await pods(ns, 'owner')).toEqual([]);
    });
  });
});

describe('admission', () => {
  it('refuses a privileged pod in a namespace that enforces the restricted Pod Security Standard', async () => {
    const ns = await namespace({ 'pod-security.kubernetes.io/enforce': 'restricted' });
    const pod = {
      metadata: { name: 'privileged' },
      spec: { containers: [{ name: 'c', image: 'registry.example.com/c:1', securityContext: { privileged: true } }] },
    };
    const refused = await cluster.kube<{ message: string }>('POST', `/api/v1/namespaces/${ns}/pods`, pod);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('violates PodSecurity "restricted:latest"');
    expect(refused.body.message).toContain('privileged');
  });

  it('refuses pods over a ResourceQuota: the ReplicaSet reports FailedCreate', async () => {
    const ns = await namespace();
    const quota = { metadata: { name: 'one-pod' }, spec: { hard: { pods: '1' } } };
    expect((await cluster.kube('POST', `/api/v1/namespaces/${ns}/resourcequotas`, quota)).status).toBe(201);
    // The quota controller fills in what is used; until then the admission plugin refuses every pod.
    await eventually(async () => {
      const { body } = await cluster.kube<{ status: { used?: Record<string, string> } }>(
        'GET',
        `/api/v1/namespaces/${ns}/resourcequotas/one-pod`,
      );
      expect(body.status.used).toEqual({ pods: '0' });
    });
    await createDeployment(ns, 'crowd', 2);
    const condition = await eventually(async () => {
      const { body } = await cluster.kube<{ items: Array<{ status: { conditions?: Condition[] } }> }>(
        'GET',
        `/apis/apps/v1/namespaces/${ns}/replicasets`,
      );
      const failure = body.items[0]?.status.conditions?.find((candidate) => candidate.type === 'ReplicaFailure');
      expect(failure).toMatchObject({ status: 'True', reason: 'FailedCreate' });
      return failure;
    });
    expect(condition?.message).toContain('exceeded quota: one-pod');
    expect(await pods(ns, 'crowd')).toHaveLength(1);
  });
});

describe('the workload helpers, on pods the agent holds', () => {
  it('markDeploymentAvailable makes the pods run and returns once the Deployment controller reports the Deployment available', async () => {
    const ns = await namespace();
    await createDeployment(ns, 'held-web', 2, { [OUTCOME_ANNOTATION]: 'pending' });
    await eventually(async () => expect(await pods(ns, 'held-web')).toHaveLength(2));
    expect((await deploymentStatus(ns, 'held-web')).availableReplicas ?? 0).toBe(0);
    await markDeploymentAvailable(cluster.kube, ns, 'held-web');
    expect((await deploymentStatus(ns, 'held-web')).availableReplicas).toBe(2);
  });

  it('completeJob and failJob end the pod and return once the Job controller reports the Job Complete or Failed', async () => {
    const ns = await namespace();
    await createJob(ns, 'held-ok', 'pending');
    await createJob(ns, 'held-bad', 'pending');
    await completeJob(cluster.kube, ns, 'held-ok', 'done');
    expect(await jobConditions(ns, 'held-ok')).toContainEqual(expect.objectContaining({ type: 'Complete', status: 'True' }));
    expect((await pods(ns, 'held-ok'))[0]?.status.containerStatuses?.[0]?.state.terminated).toMatchObject({ exitCode: 0, message: 'done' });
    await failJob(cluster.kube, ns, 'held-bad', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit');
    expect((await pods(ns, 'held-bad'))[0]?.status.phase).toBe('Failed');
  });
});

describe('unprovisioned controllers', () => {
  it('fail with the command that provisions them, before starting anything', async () => {
    await withEmptyInfraCache(async () => {
      await expect(startKubeControllers(cluster.server)).rejects.toThrow(
        /kube-controller-manager 1\.37\.2 .* is not provisioned; run: node test\/infra\/provision\.ts/,
      );
    });
  });
});
