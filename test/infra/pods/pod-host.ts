// The node agent's real-process mode: each Pod bound to the node runs as processes of its image's root
// filesystem (pod-runner.ts), its Secrets and ConfigMaps read from the API server, its ServiceAccount
// token requested for it, and every change of its status written back. Each Pod has a network and an
// address of its own (pod-network.ts).
import type { V1Pod } from '@kubernetes/client-node';
import type { KubeApiServer } from '../kubernetes.ts';
import type { KubeRequest } from '../kube-client.ts';
import type { BackOff, RootImage } from './container-runner.ts';
import type { SourceLookup } from './pod-env.ts';
import { startPod, type PodStatus, type RunningPod } from './pod-runner.ts';

export interface ProcessRuntimeOptions {
  /** The image a container names, opened once (e.g. from the built OCI archive). */
  readonly image: (reference: string) => Promise<RootImage>;
  readonly backOff?: BackOff;
  /**
   * The ports of the test servers on the host's 127.0.0.1 the pods use (PostgreSQL, Kafka…), which a
   * pod reaches at its own 127.0.0.1; the API server's is added.
   */
  readonly hostPorts?: readonly number[];
}

export interface PodHostOptions extends ProcessRuntimeOptions {
  readonly server: KubeApiServer;
  readonly kube: KubeRequest;
  /** Writes a status on the stored Pod (again on a conflict). */
  readonly writeStatus: (pod: V1Pod, status: PodStatus | Record<string, unknown>) => Promise<void>;
  readonly onError: (error: unknown) => void;
}

export interface PodHost {
  /** Starts the Pod's processes unless they run already. */
  run(pod: V1Pod): Promise<void>;
  /** Stops the Pod's processes (SIGTERM, then SIGKILL) and frees its ports. */
  stop(uid: string): Promise<void>;
  stopAll(): Promise<void>;
}

function secretLookup(kube: KubeRequest, namespace: string): SourceLookup {
  return async (kind, name) => {
    const path = `/api/v1/namespaces/${namespace}/${kind === 'Secret' ? 'secrets' : 'configmaps'}/${name}`;
    const reply = await kube<{ data?: Record<string, string> }>('GET', path);
    if (reply.status === 404) return undefined;
    if (reply.status !== 200) throw new Error(`GET ${path}: HTTP ${reply.status}`);
    const data = reply.body.data ?? {};
    return kind === 'Secret'
      ? Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value, 'base64').toString()]))
      : data;
  };
}

/**
 * A token for the Pod's ServiceAccount from the TokenRequest API, with the server's CA. Bound to the
 * Pod when the Pod names its account; the test API server runs without the ServiceAccount admission
 * plugin, which would otherwise name `default`, and the API server binds a token only to a Pod that
 * names the account.
 */
async function serviceAccountOf(server: KubeApiServer, kube: KubeRequest, pod: V1Pod) {
  const namespace = pod.metadata?.namespace ?? 'default';
  const named = pod.spec?.serviceAccountName;
  const account = named ?? 'default';
  const boundObjectRef =
    named === undefined ? {} : { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: pod.metadata?.name, uid: pod.metadata?.uid } };
  const requested = await kube<{ status: { token: string } }>('POST', `/api/v1/namespaces/${namespace}/serviceaccounts/${account}/token`, {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: { expirationSeconds: 3600, ...boundObjectRef },
  });
  if (requested.status !== 201)
    throw new Error(`a token for ServiceAccount ${namespace}/${account}: HTTP ${requested.status}: ${JSON.stringify(requested.body)}`);
  const { hostname, port } = new URL(server.url);
  return {
    files: { token: requested.body.status.token, 'ca.crt': server.caData, namespace },
    env: { KUBERNETES_SERVICE_HOST: hostname, KUBERNETES_SERVICE_PORT: port, KUBERNETES_SERVICE_PORT_HTTPS: port },
  };
}

export function podHost(options: PodHostOptions): PodHost {
  const running = new Map<string, RunningPod>();
  const starting = new Map<string, Promise<void>>();

  /** Status writes of one Pod, one at a time; changes during a write make one more. */
  const reporter = (pod: V1Pod, status: () => PodStatus) => {
    let writing: Promise<void> | undefined;
    let again = false;
    const write = (): void => {
      if (writing) {
        again = true;
        return;
      }
      writing = options
        .writeStatus(pod, status())
        .catch(options.onError)
        .finally(() => {
          writing = undefined;
          if (again) {
            again = false;
            write();
          }
        });
    };
    return write;
  };

  const start = async (pod: V1Pod): Promise<void> => {
    let report: () => void = () => undefined;
    const started = await startPod(pod, {
      image: options.image,
      lookup: secretLookup(options.kube, pod.metadata?.namespace ?? 'default'),
      serviceAccount: (target) => serviceAccountOf(options.server, options.kube, target),
      ...(options.backOff ? { backOff: options.backOff } : {}),
      hostPorts: [Number(new URL(options.server.url).port), ...(options.hostPorts ?? [])],
      onChange: () => report(),
    });
    running.set(pod.metadata?.uid as string, started);
    report = reporter(pod, () => started.status());
    report();
  };

  return {
    run(pod) {
      const uid = pod.metadata?.uid as string;
      if (running.has(uid)) return Promise.resolve();
      const pending = starting.get(uid) ?? start(pod).finally(() => starting.delete(uid));
      starting.set(uid, pending);
      return pending;
    },
    async stop(uid) {
      await starting.get(uid);
      await running.get(uid)?.stop();
      running.delete(uid);
    },
    async stopAll() {
      await Promise.all([...starting.values()]);
      const entries = [...running.values()];
      running.clear();
      await Promise.all(entries.map((entry) => entry.stop()));
    },
  };
}
