// kube-controller-manager and kube-scheduler beside a test API server: Deployments get ReplicaSets and
// Pods, Jobs get Pods and conditions, the garbage collector deletes what an owner leaves behind, and Pods
// are bound to a Node. No kubelet: node-agent.ts plays it.
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { kubeControllerManagerTool, kubeSchedulerTool, type GoTool } from './layout.ts';
import { getVerified, requireTool, type KubeApiServer } from './kubernetes.ts';
import { startServer, type ServerHandle } from './managed-server.ts';
import { freePort, launch } from './proc.ts';

/**
 * The controllers the tests rely on. The serviceaccount controller creates each namespace's `default`
 * account, whose token the node agent asks for when it runs a pod's processes (tokens come from the
 * TokenRequest API, so the legacy token controller is not run). Not the node lifecycle controller: the
 * node agent keeps its Node Ready and untainted itself.
 */
export const CONTROLLERS = ['deployment', 'replicaset', 'job', 'garbagecollector', 'namespace', 'resourcequota', 'serviceaccount'] as const;

export interface KubeControllers {
  pids(): { controllerManager: number | undefined; scheduler: number | undefined };
  /** Stops both by PID; the API server keeps running. */
  dispose(): Promise<void>;
}

/**
 * One of the two, on a free loopback port: that port serves only /healthz (it is how we know the process
 * is up). It reaches the API server through the server's admin kubeconfig and runs without leader election.
 */
function startComponent(
  name: 'kube-controller-manager' | 'kube-scheduler',
  tool: GoTool,
  server: KubeApiServer,
  extraArgs: readonly string[],
): Promise<ServerHandle> {
  const binary = requireTool(tool);
  return startServer(name, async (baseDir) => {
    const port = await freePort();
    const url = `https://127.0.0.1:${port}`;
    const certDir = join(baseDir, 'certs');
    await mkdir(certDir, { mode: 0o700 });
    const args = [
      `--kubeconfig=${server.kubeconfigPath()}`,
      '--leader-elect=false',
      '--bind-address=127.0.0.1',
      `--secure-port=${port}`,
      // A self-signed serving certificate (and its CA) for 127.0.0.1, written here on start.
      `--cert-dir=${certDir}`,
      ...extraArgs,
    ];
    return {
      name,
      port,
      url,
      baseDir,
      launch: (logFile) => launch(binary, args, { logFile }),
      // /healthz is always allowed, so no credentials are needed; the certificate file holds the chain up to its CA.
      probe: async () => {
        await getVerified(url, '/healthz', undefined, readFileSync(join(certDir, `${name}.crt`), 'utf8'));
      },
      readyTimeoutMs: 60_000,
      stopSignal: 'SIGTERM',
      stopTimeoutMs: 10_000,
    };
  });
}

/** Starts kube-controller-manager and kube-scheduler against `server` and returns once both answer /healthz. */
export async function startKubeControllers(server: KubeApiServer): Promise<KubeControllers> {
  requireTool(kubeControllerManagerTool());
  requireTool(kubeSchedulerTool());
  const results = await Promise.allSettled([
    startComponent('kube-controller-manager', kubeControllerManagerTool(), server, [
      `--controllers=${CONTROLLERS.join(',')}`,
      // The controllers act with the admin credentials, not a service account each.
      '--use-service-account-credentials=false',
    ]),
    startComponent('kube-scheduler', kubeSchedulerTool(), server, []),
  ]);
  const started = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const dispose = async (): Promise<void> => {
    await Promise.all(started.map((handle) => handle.dispose()));
  };
  const failures = results.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []));
  if (failures.length > 0) {
    await dispose();
    throw new AggregateError(
      failures,
      failures.map((failure) => (failure instanceof Error ? failure.message : String(failure))).join('\n\n'),
    );
  }
  const [controllerManager, scheduler] = started as [ServerHandle, ServerHandle];
  return { pids: () => ({ controllerManager: controllerManager.pid(), scheduler: scheduler.pid() }), dispose };
}
