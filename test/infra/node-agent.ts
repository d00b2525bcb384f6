// A stand-in for the kubelet on one Node. It registers the Node (Ready, with room for any test's pods)
// and, for each Pod the scheduler binds to it, writes the status a kubelet would for the Pod's outcome:
// running and ready, never started, an image that cannot be pulled, or containers that exit (the Pod
// then ends, or crash-loops when its restart policy restarts them). It runs no processes: the outcome
// is read from the Pod's annotation, else the agent's default. Pods being deleted are finished at once
// (grace period 0), as a kubelet does once their containers are gone.
import type { V1Pod } from '@kubernetes/client-node';
import type { KubeApiServer } from './kubernetes.ts';
import { kubeClient, type KubeRequest } from './kube-client.ts';
import { podHost, type ProcessRuntimeOptions } from './pods/pod-host.ts';

/**
 * `running`: started and ready. `unready`: started, its readiness probe failing. `pending`: never
 * started (waiting in ContainerCreating). `exit <code>`:
 * every container exits with the code. `ErrImagePull`, `ImagePullBackOff`: the image cannot be pulled.
 */
export type PodOutcome = 'running' | 'unready' | 'pending' | `exit ${number}` | 'ErrImagePull' | 'ImagePullBackOff';

/** Set on a Pod (or in a Pod template) to choose its outcome. */
export const OUTCOME_ANNOTATION = 'node-agent.shop.test/outcome';
/** What the containers that exit wrote to their termination message file. */
export const TERMINATION_MESSAGE_ANNOTATION = 'node-agent.shop.test/termination-message';

export interface NodeAgentOptions {
  readonly nodeName?: string;
  /** For Pods without the annotation, or a choice per Pod (e.g. `exit 0` for a Job's); `running` unless given. */
  readonly defaultOutcome?: PodOutcome | ((pod: Pod) => PodOutcome);
  /** The delay before each restart of a crash-looping container doubles from `initialMs` up to `maxMs` (a kubelet: 10 s to 5 min). */
  readonly crashLoopBackOff?: { readonly initialMs: number; readonly maxMs: number };
  /**
   * Run every Pod's containers for real, as processes of its image's root filesystem (test/infra/pods),
   * instead of reporting an outcome: probes, exits, restarts and termination messages are the processes'.
   */
  readonly processes?: ProcessRuntimeOptions;
}

export interface NodeAgent {
  readonly nodeName: string;
  /** Stops watching and restarting; the Node and the Pods' statuses stay as they are. */
  stop(): Promise<void>;
}

interface Container {
  name: string;
  image: string;
}

interface Condition {
  type: string;
  status: string;
}

export interface Pod {
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    resourceVersion: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    deletionTimestamp?: string;
  };
  spec: { nodeName?: string; restartPolicy?: 'Always' | 'OnFailure' | 'Never'; containers: Container[] };
  status?: { phase?: string; conditions?: Condition[]; startTime?: string };
}

const OUTCOME = /^(running|unready|pending|ErrImagePull|ImagePullBackOff|exit (\d{1,3}))$/;

const now = (): string => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

function condition(type: string, status: boolean, reason?: string): Record<string, unknown> {
  return {
    type,
    status: status ? 'True' : 'False',
    lastProbeTime: null,
    lastTransitionTime: now(),
    ...(reason === undefined ? {} : { reason }),
  };
}

const isTerminal = (pod: Pod): boolean => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

/** The status a kubelet reports for `pod` with every container in `state`. */
function podStatus(pod: Pod, phase: string, state: ContainerState): Record<string, unknown> {
  const ready = phase === 'Running' && state.running && state.unready !== true;
  const ended = phase === 'Succeeded' || phase === 'Failed';
  const notReady = ended ? (phase === 'Succeeded' ? 'PodCompleted' : 'PodFailed') : 'ContainersNotReady';
  const scheduled = pod.status?.conditions?.find((candidate) => candidate.type === 'PodScheduled') ?? condition('PodScheduled', true);
  return {
    ...pod.status,
    phase,
    hostIP: '127.0.0.1',
    hostIPs: [{ ip: '127.0.0.1' }],
    // Host network: every Pod has the node's address.
    podIP: '127.0.0.1',
    podIPs: [{ ip: '127.0.0.1' }],
    startTime: pod.status?.startTime ?? now(),
    conditions: [
      condition('PodReadyToStartContainers', state.sandbox),
      condition('Initialized', true),
      condition('Ready', ready, ready ? undefined : notReady),
      condition('ContainersReady', ready, ready ? undefined : notReady),
      scheduled,
    ],
    containerStatuses: pod.spec.containers.map((container) => ({
      name: container.name,
      image: container.image,
      // A runtime reports the digest it ran; this agent knows it only when the image is pinned by one.
      imageID: container.image.includes('@sha256:') ? container.image : '',
      ready,
      started: state.running,
      restartCount: state.restartCount,
      state: state.describe(container),
      ...(state.lastState ? { lastState: state.lastState } : {}),
    })),
  };
}

interface ContainerState {
  readonly sandbox: boolean;
  readonly running: boolean;
  /** Running, but its readiness probe fails. */
  readonly unready?: boolean;
  readonly restartCount: number;
  readonly lastState?: Record<string, unknown>;
  describe(container: Container): Record<string, unknown>;
}

const waiting = (reason: string, message?: (container: Container) => string): ContainerState => ({
  sandbox: reason !== 'ContainerCreating',
  running: false,
  restartCount: 0,
  describe: (container) => ({ waiting: { reason, ...(message ? { message: message(container) } : {}) } }),
});

function terminated(exitCode: number, message: string | undefined): Record<string, unknown> {
  return {
    exitCode,
    reason: exitCode === 0 ? 'Completed' : 'Error',
    startedAt: now(),
    finishedAt: now(),
    ...(message === undefined ? {} : { message }),
  };
}

/** Whether the kubelet starts a container again after it exited with `exitCode`. */
function restarts(pod: Pod, exitCode: number): boolean {
  const policy = pod.spec.restartPolicy ?? 'Always';
  return policy === 'Always' || (policy === 'OnFailure' && exitCode !== 0);
}

export async function startNodeAgent(server: KubeApiServer, options: NodeAgentOptions = {}): Promise<NodeAgent> {
  const nodeName = options.nodeName ?? 'node-agent';
  const defaultOutcome = options.defaultOutcome ?? 'running';
  const backOff = options.crashLoopBackOff ?? { initialMs: 500, maxMs: 8_000 };
  const kube = kubeClient(server);
  await registerNode(kube, nodeName);

  const aborter = new AbortController();
  /** Per Pod uid: the outcome last written, so that the agent's own status writes (watch events too) change nothing. */
  const applied = new Map<string, string>();
  const restartTimers = new Map<string, NodeJS.Timeout>();
  /** Pods being deleted that the agent has reported ended and deleted with grace period 0. */
  const finished = new Set<string>();
  /** Per Pod uid: the sync under way; the next one waits for it. */
  const syncs = new Map<string, Promise<void>>();

  const podPath = (pod: Pod): string => `/api/v1/namespaces/${pod.metadata.namespace}/pods/${pod.metadata.name}`;

  const forget = (uid: string): void => {
    clearTimeout(restartTimers.get(uid));
    restartTimers.delete(uid);
    applied.delete(uid);
  };

  /** PUTs the status made from the latest stored Pod; again on a conflict. Gives up quietly when the Pod is gone. */
  const writeStatus = async (pod: Pod, status: (current: Pod) => Record<string, unknown>): Promise<void> => {
    let current = pod;
    for (let attempt = 1; ; attempt += 1) {
      const reply = await kube('PUT', `${podPath(current)}/status`, { ...current, status: status(current) });
      if (reply.status === 200 || reply.status === 404) return;
      if (reply.status !== 409 || attempt === 5)
        throw new Error(`PUT ${podPath(current)}/status: HTTP ${reply.status}: ${JSON.stringify(reply.body)}`);
      const fresh = await kube<Pod>('GET', podPath(current));
      if (fresh.status === 404 || fresh.body.metadata.uid !== pod.metadata.uid) return;
      current = fresh.body;
    }
  };

  const host =
    options.processes &&
    podHost({
      ...options.processes,
      ...(options.crashLoopBackOff ? { backOff: options.crashLoopBackOff } : {}),
      server,
      kube,
      writeStatus: (pod, status) => writeStatus(pod as unknown as Pod, (current) => ({ ...current.status, ...status })),
      onError: (error) => console.error(`[node-agent] ${error instanceof Error ? error.message : String(error)}`),
    });

  const crashLoop = (pod: Pod, exitCode: number, message: string | undefined, restartCount: number): Promise<void> => {
    const delayMs = Math.min(backOff.initialMs * 2 ** restartCount, backOff.maxMs);
    const state: ContainerState = {
      sandbox: true,
      running: false,
      restartCount,
      lastState: { terminated: terminated(exitCode, message) },
      describe: (container) => ({
        waiting: {
          reason: 'CrashLoopBackOff',
          message: `back-off ${Math.round(delayMs / 1000)}s restarting failed container=${container.name} pod=${pod.metadata.name}`,
        },
      }),
    };
    const outcome = applied.get(pod.metadata.uid);
    restartTimers.set(
      pod.metadata.uid,
      setTimeout(() => {
        restartTimers.delete(pod.metadata.uid);
        void serialized(pod.metadata.uid, async () => {
          // The outcome may have changed while this restart waited its turn.
          if (applied.get(pod.metadata.uid) === outcome) await crashLoop(pod, exitCode, message, restartCount + 1);
        });
      }, delayMs),
    );
    return writeStatus(pod, (current) => podStatus(current, 'Running', state));
  };

  const apply = (pod: Pod, outcome: string, message: string | undefined): Promise<void> => {
    const exit = OUTCOME.exec(outcome)?.[2];
    if (exit !== undefined) {
      const exitCode = Number(exit);
      if (restarts(pod, exitCode)) return crashLoop(pod, exitCode, message, 0);
      const state: ContainerState = {
        sandbox: true,
        running: false,
        restartCount: 0,
        describe: () => ({ terminated: terminated(exitCode, message) }),
      };
      return writeStatus(pod, (current) => podStatus(current, exitCode === 0 ? 'Succeeded' : 'Failed', state));
    }
    switch (outcome) {
      case 'running':
      case 'unready': {
        const startedAt = now();
        const state: ContainerState = {
          sandbox: true,
          running: true,
          unready: outcome === 'unready',
          restartCount: 0,
          describe: () => ({ running: { startedAt } }),
        };
        return writeStatus(pod, (current) => podStatus(current, 'Running', state));
      }
      case 'pending':
        return writeStatus(pod, (current) => podStatus(current, 'Pending', waiting('ContainerCreating')));
      case 'ErrImagePull':
      case 'ImagePullBackOff':
        return writeStatus(pod, (current) =>
          podStatus(
            current,
            'Pending',
            waiting(outcome, (container) => `Back-off pulling image "${container.image}"`),
          ),
        );
      default:
        // A kubelet refuses a container it cannot configure the same way.
        return writeStatus(pod, (current) =>
          podStatus(
            current,
            'Pending',
            waiting(
              'CreateContainerConfigError',
              () =>
                `${OUTCOME_ANNOTATION} "${outcome}" is not one of running, unready, pending, exit <code>, ErrImagePull, ImagePullBackOff`,
            ),
          ),
        );
    }
  };

  /** A kubelet kills the containers of a deleted Pod, reports it ended, and then removes it for good. */
  const finish = async (pod: Pod): Promise<void> => {
    forget(pod.metadata.uid);
    if (!isTerminal(pod)) {
      const killed: ContainerState = {
        sandbox: false,
        running: false,
        restartCount: 0,
        describe: () => ({ terminated: terminated(137, undefined) }),
      };
      await writeStatus(pod, (current) => podStatus(current, 'Failed', killed));
    }
    const reply = await kube('DELETE', podPath(pod), { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid } });
    if (![200, 404, 409].includes(reply.status))
      throw new Error(`DELETE ${podPath(pod)}: HTTP ${reply.status}: ${JSON.stringify(reply.body)}`);
  };

  const sync = async (pod: Pod): Promise<void> => {
    if (pod.metadata.deletionTimestamp !== undefined) {
      // Once: a Pod with finalizers (a Job's) stays until its controller removes them, and changes meanwhile.
      if (finished.has(pod.metadata.uid)) return;
      await host?.stop(pod.metadata.uid);
      await finish(pod);
      finished.add(pod.metadata.uid);
      return;
    }
    if (isTerminal(pod)) return;
    if (host) return host.run(pod as unknown as V1Pod);
    const outcome =
      pod.metadata.annotations?.[OUTCOME_ANNOTATION] ?? (typeof defaultOutcome === 'function' ? defaultOutcome(pod) : defaultOutcome);
    const message = pod.metadata.annotations?.[TERMINATION_MESSAGE_ANNOTATION];
    const key = JSON.stringify([outcome, message]);
    if (applied.get(pod.metadata.uid) === key) return;
    forget(pod.metadata.uid);
    applied.set(pod.metadata.uid, key);
    try {
      await apply(pod, outcome, message);
    } catch (error) {
      applied.delete(pod.metadata.uid); // the Pod's next event tries again
      throw error;
    }
  };

  const serialized = (uid: string, work: () => Promise<void>): Promise<void> => {
    const next = (syncs.get(uid) ?? Promise.resolve())
      .then(() => (aborter.signal.aborted ? undefined : work()))
      .catch((error: unknown) => {
        if (!aborter.signal.aborted) console.error(`[node-agent] ${error instanceof Error ? error.message : String(error)}`);
      });
    syncs.set(uid, next);
    void next.then(() => {
      if (syncs.get(uid) === next) syncs.delete(uid);
    });
    return next;
  };

  const watching = watchPods(server, kube, nodeName, aborter.signal, {
    changed: (pod) => void serialized(pod.metadata.uid, () => sync(pod)),
    deleted: (pod) =>
      void serialized(pod.metadata.uid, async () => {
        await host?.stop(pod.metadata.uid);
        forget(pod.metadata.uid);
        finished.delete(pod.metadata.uid);
      }),
  });

  return {
    nodeName,
    stop: async () => {
      aborter.abort();
      for (const timer of restartTimers.values()) clearTimeout(timer);
      restartTimers.clear();
      await watching;
      await Promise.all(syncs.values());
      await host?.stopAll();
    },
  };
}

/** Creates the Node and reports it Ready, as a kubelet does when it registers. */
async function registerNode(kube: KubeRequest, name: string): Promise<void> {
  const path = `/api/v1/nodes/${name}`;
  const labels = { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64' };
  const created = await kube('POST', '/api/v1/nodes', { metadata: { name, labels } });
  if (created.status !== 201) throw new Error(`POST Node ${name}: HTTP ${created.status}: ${JSON.stringify(created.body)}`);
  // Room for every Pod of any test, whatever it requests: the agent runs nothing.
  const resources = { cpu: '1000', memory: '4Ti', pods: '10000', 'ephemeral-storage': '10Ti' };
  const node = await kube<{ spec: { taints?: Array<{ key: string }> } }>('GET', path);
  const status = {
    capacity: resources,
    allocatable: resources,
    addresses: [
      { type: 'InternalIP', address: '127.0.0.1' },
      { type: 'Hostname', address: name },
    ],
    conditions: [
      { ...condition('Ready', true, 'KubeletReady'), lastHeartbeatTime: now(), message: 'the node agent is ready' },
      ...['MemoryPressure', 'DiskPressure', 'PIDPressure'].map((type) => ({
        ...condition(type, false, `KubeletHasNo${type}`),
        lastHeartbeatTime: now(),
      })),
    ],
  };
  const reported = await kube('PUT', `${path}/status`, { ...node.body, status });
  if (reported.status !== 200) throw new Error(`PUT Node ${name} status: HTTP ${reported.status}: ${JSON.stringify(reported.body)}`);
  // The API server taints every new Node not-ready; the node lifecycle controller (not run here) lifts it once the Node is Ready.
  const current = await kube<{ spec: { taints?: Array<{ key: string }> } }>('GET', path);
  const taints = (current.body.spec.taints ?? []).filter((taint) => taint.key !== 'node.kubernetes.io/not-ready');
  const untainted = await kube('PUT', path, { ...current.body, spec: { ...current.body.spec, taints } });
  if (untainted.status !== 200) throw new Error(`PUT Node ${name}: HTTP ${untainted.status}: ${JSON.stringify(untainted.body)}`);
}

interface PodHandlers {
  changed(pod: Pod): void;
  deleted(pod: Pod): void;
}

/** LIST the Pods bound to the Node, then WATCH from the list's resourceVersion; again from a fresh LIST when the watch expires. */
async function watchPods(
  server: KubeApiServer,
  kube: KubeRequest,
  nodeName: string,
  signal: AbortSignal,
  handlers: PodHandlers,
): Promise<void> {
  const pods = `/api/v1/pods?fieldSelector=${encodeURIComponent(`spec.nodeName=${nodeName}`)}`;
  while (!signal.aborted) {
    try {
      const list = await kube<{ metadata: { resourceVersion: string }; items: Pod[] }>('GET', pods);
      if (list.status !== 200) throw new Error(`GET ${pods}: HTTP ${list.status}`);
      for (const pod of list.body.items) handlers.changed(pod);
      let resourceVersion = list.body.metadata.resourceVersion;
      for (;;) {
        const ended = await watchFrom(
          server,
          `${pods}&watch=1&allowWatchBookmarks=true&resourceVersion=${resourceVersion}`,
          signal,
          (type, object) => {
            resourceVersion = object.metadata.resourceVersion;
            if (type === 'ADDED' || type === 'MODIFIED') handlers.changed(object);
            else if (type === 'DELETED') handlers.deleted(object);
          },
        );
        if (ended === 'expired' || signal.aborted) break;
      }
    } catch (error) {
      if (signal.aborted) return;
      console.error(`[node-agent] watching pods: ${error instanceof Error ? error.message : String(error)}; listing again`);
      // why: a pause before listing again after a failed watch, as a kubelet's informer makes; nothing to poll for
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** One WATCH request, one JSON event per line. 'closed' when the server ended it, 'expired' when the resourceVersion is too old. */
async function watchFrom(
  server: KubeApiServer,
  path: string,
  signal: AbortSignal,
  onEvent: (type: string, object: Pod) => void,
): Promise<'closed' | 'expired'> {
  const response = await fetch(new URL(path, server.url), { headers: { authorization: `Bearer ${server.token}` }, signal }).catch(
    (error: unknown) => {
      if (signal.aborted) return undefined;
      throw error;
    },
  );
  if (response === undefined) return 'closed';
  if (response.status === 410) return 'expired';
  if (response.status !== 200 || response.body === null) throw new Error(`WATCH ${path}: HTTP ${response.status}`);
  const decoder = new TextDecoder();
  let buffered = '';
  try {
    for await (const chunk of response.body) {
      buffered += decoder.decode(chunk, { stream: true });
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        if (line.trim() === '') continue;
        const event = JSON.parse(line) as { type: string; object: Pod & { code?: number } };
        if (event.type === 'ERROR') return event.object.code === 410 ? 'expired' : 'closed';
        onEvent(event.type, event.object);
      }
    }
  } catch (error) {
    if (!signal.aborted) throw error;
  }
  return 'closed';
}
