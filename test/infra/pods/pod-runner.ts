// A pod run for real: each container a process of the image's root filesystem (container-runner.ts),
// in a network of the pod's own (pod-network.ts), with its emptyDir volumes as fresh host directories and its termination
// message file bound in; the pod's status (phase, conditions, container statuses) as the kubelet
// would write it.
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { trackTempDir, untrackTempDir } from '../proc.ts';
import {
  ContainerRunner,
  KUBELET_BACKOFF,
  type BackOff,
  type ContainerStatus,
  type RestartPolicy,
  type RootImage,
} from './container-runner.ts';
import { ContainerConfigError, containerEnv, type SourceLookup } from './pod-env.ts';
import { openPodNetwork } from './pod-network.ts';

export interface PodRunnerOptions {
  /** The opened image a container names (the agent opens each image once). */
  readonly image: (reference: string) => Promise<RootImage>;
  /** Secrets and ConfigMaps of the pod's namespace. */
  readonly lookup: SourceLookup;
  readonly backOff?: BackOff;
  /** The ports of the host's 127.0.0.1 (its test servers) that the pod reaches at its own 127.0.0.1. */
  readonly hostPorts: readonly number[];
  /**
   * What the kubelet gives a pod that mounts its ServiceAccount token: the files `token`, `ca.crt` and
   * `namespace`, and the KUBERNETES_SERVICE_HOST and _PORT variables in-cluster clients read.
   */
  readonly serviceAccount?: (
    pod: V1Pod,
  ) => Promise<{ readonly files: Readonly<Record<string, string>>; readonly env: Readonly<Record<string, string>> }>;
  /** Told whenever the pod's status may have changed. */
  readonly onChange: () => void;
}

export interface PodCondition {
  readonly type: string;
  readonly status: 'True' | 'False';
  readonly lastTransitionTime: string;
}

export interface PodStatus {
  readonly phase: 'Pending' | 'Running' | 'Succeeded' | 'Failed';
  readonly conditions: PodCondition[];
  readonly hostIP: string;
  readonly podIP: string;
  readonly podIPs: Array<{ ip: string }>;
  readonly startTime: string;
  readonly containerStatuses: ContainerStatus[];
}

export interface RunningPod {
  /** Its address: each pod has a network of its own. */
  readonly ip: string;
  status(): PodStatus;
  /** The output of a container's latest process. */
  output(container: string): string;
  /** Stops every container and removes the pod's volumes and network. */
  stop(): Promise<void>;
}

const timestamp = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
const RETRY_CONFIG_MS = 1000;
const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

function userOf(pod: V1Pod, container: V1Container): string | undefined {
  const uid = container.securityContext?.runAsUser ?? pod.spec?.securityContext?.runAsUser;
  const gid = container.securityContext?.runAsGroup ?? pod.spec?.securityContext?.runAsGroup;
  if (uid === undefined) return undefined;
  return gid === undefined ? String(uid) : `${uid}:${gid}`;
}

/** A container waiting for its configuration (a Secret or key not there yet), as CreateContainerConfigError. */
function waitingStatus(container: V1Container, reason: string, message?: string): ContainerStatus {
  return {
    name: container.name,
    image: container.image ?? '',
    imageID: '',
    state: { waiting: { reason, ...(message ? { message } : {}) } },
    lastState: {},
    restartCount: 0,
    started: false,
    ready: false,
  };
}

export async function startPod(pod: V1Pod, options: PodRunnerOptions): Promise<RunningPod> {
  const spec = pod.spec;
  if (!spec) throw new Error(`pod ${pod.metadata?.name} has no spec`);
  if (spec.initContainers?.length) throw new Error(`pod ${pod.metadata?.name}: the pod runtime does not run init containers`);
  const network = await openPodNetwork(options.hostPorts);
  const podDir = await mkdtemp(join(tmpdir(), 'shop-pod-'));
  trackTempDir(podDir);
  const volumes = new Map<string, string>();
  for (const volume of spec.volumes ?? []) {
    if (!volume.emptyDir)
      throw new Error(`pod ${pod.metadata?.name}: volume ${volume.name} is not an emptyDir, the only kind the pod runtime provides`);
    const dir = await mkdtemp(join(podDir, `${volume.name}-`));
    await chmod(dir, 0o777); // as the kubelet makes an emptyDir: writable by the pod's user
    volumes.set(volume.name, dir);
  }

  const restartPolicy = (spec.restartPolicy ?? 'Always') as RestartPolicy;
  const startTime = timestamp();
  const runners = new Map<string, ContainerRunner>();
  const waiting = new Map<string, ContainerStatus>();
  let stopped = false;

  const account = spec.automountServiceAccountToken !== false && options.serviceAccount ? await options.serviceAccount(pod) : undefined;
  const accountDir = join(podDir, 'serviceaccount');
  if (account) {
    await mkdir(accountDir, { mode: 0o755 });
    for (const [name, content] of Object.entries(account.files)) await writeFile(join(accountDir, name), content, { mode: 0o644 });
  }

  const startContainer = async (container: V1Container): Promise<void> => {
    while (!stopped) {
      try {
        const env = { ...account?.env, ...(await containerEnv(pod, container, options.lookup)) };
        const messageFile = join(podDir, `${container.name}.termination-log`);
        await writeFile(messageFile, '', { mode: 0o666 });
        await chmod(messageFile, 0o666);
        const mounts = [
          ...(container.volumeMounts ?? []).map((mount) => {
            const source = volumes.get(mount.name);
            if (!source) throw new Error(`container ${container.name} mounts volume ${mount.name}, which the pod does not define`);
            // buildah binds read-only unless told otherwise; a volume mount is writable unless it says readOnly.
            return `type=bind,src=${source},dst=${mount.mountPath},${mount.readOnly ? 'ro' : 'rw'}`;
          }),
          `type=bind,src=${messageFile},dst=${container.terminationMessagePath ?? '/dev/termination-log'}`,
          ...(account ? [`type=bind,src=${accountDir},dst=${SERVICE_ACCOUNT_DIR},ro`] : []),
        ];
        const user = userOf(pod, container);
        const image = await options.image(container.image ?? '');
        waiting.delete(container.name);
        runners.set(
          container.name,
          new ContainerRunner({
            container,
            image,
            network,
            run: { env, mounts, ...(user ? { user } : {}), ...(container.workingDir ? { workingDir: container.workingDir } : {}) },
            restartPolicy,
            backOff: options.backOff ?? KUBELET_BACKOFF,
            terminationMessageFile: messageFile,
            onChange: options.onChange,
          }),
        );
        options.onChange();
        return;
      } catch (error) {
        if (!(error instanceof ContainerConfigError)) throw error;
        waiting.set(container.name, waitingStatus(container, 'CreateContainerConfigError', error.message));
        options.onChange();
        // why: the kubelet retries a container config too, after a pause: the Secret may be created after the pod.
        await new Promise((resolve) => setTimeout(resolve, RETRY_CONFIG_MS).unref());
      }
    }
  };
  for (const container of spec.containers) waiting.set(container.name, waitingStatus(container, 'ContainerCreating'));
  // Not awaited: a container may wait for its Secret for as long as the pod lives.
  const starting = Promise.all(
    spec.containers.map((container) =>
      startContainer(container).catch((error: unknown) => {
        waiting.set(container.name, waitingStatus(container, 'RunContainerError', (error as Error).message));
        options.onChange();
      }),
    ),
  );

  const transitions = new Map<string, PodCondition>();
  const condition = (type: string, value: boolean): PodCondition => {
    const status: PodCondition['status'] = value ? 'True' : 'False';
    const previous = transitions.get(type);
    const current = previous?.status === status ? previous : { type, status, lastTransitionTime: timestamp() };
    transitions.set(type, current);
    return current;
  };

  return {
    ip: network.ip,
    status(): PodStatus {
      const containerStatuses = spec.containers.map(
        (container) => runners.get(container.name)?.status() ?? (waiting.get(container.name) as ContainerStatus),
      );
      const everRan = containerStatuses.every(
        (status) => !('waiting' in status.state) || status.restartCount > 0 || 'terminated' in status.lastState,
      );
      const terminated = containerStatuses.map((status) => ('terminated' in status.state ? status.state.terminated : undefined));
      const allEnded = terminated.every((state) => state !== undefined);
      const phase = !everRan
        ? 'Pending'
        : allEnded
          ? terminated.every((state) => state?.exitCode === 0)
            ? 'Succeeded'
            : 'Failed'
          : 'Running';
      const ready = phase === 'Running' && containerStatuses.every((status) => status.ready);
      return {
        phase,
        conditions: [
          condition('PodScheduled', true),
          condition('Initialized', true),
          condition('ContainersReady', ready),
          condition('Ready', ready),
        ],
        hostIP: '127.0.0.1',
        podIP: network.ip,
        podIPs: [{ ip: network.ip }],
        startTime,
        containerStatuses,
      };
    },
    output: (container) => runners.get(container)?.output() ?? '',
    async stop() {
      stopped = true;
      await starting;
      await Promise.all([...runners.values()].map((runner) => runner.stop()));
      await rm(podDir, { recursive: true, force: true });
      untrackTempDir(podDir);
      await network.close();
    },
  };
}
