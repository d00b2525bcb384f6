// A small cluster for tests: the API server, the controllers and the scheduler, and the node agent on one Node.
import { kubeClient, installCrd, type KubeRequest } from './kube-client.ts';
import { startKubeControllers, type KubeControllers } from './kube-controllers.ts';
import { startKubeApiServer, type KubeApiServer } from './kubernetes.ts';
import { startNodeAgent, type NodeAgent, type NodeAgentOptions } from './node-agent.ts';
import type { ProcessRuntimeOptions } from './pods/pod-host.ts';

export interface KubeCluster {
  readonly server: KubeApiServer;
  /** Plain JSON requests as the cluster admin. */
  readonly kube: KubeRequest;
  readonly controllers: KubeControllers;
  readonly agent: NodeAgent;
  /** Stops the agent, the controllers and the API server, and deletes the data. */
  dispose(): Promise<void>;
}

export interface KubeClusterOptions {
  /** CRD manifests installed before the controllers start, so the garbage collector knows their kinds from the first moment. */
  readonly crdFiles?: ReadonlyArray<string | URL>;
  /** What the node agent does with Pods that carry no outcome annotation (see node-agent.ts). */
  readonly defaultOutcome?: NodeAgentOptions['defaultOutcome'];
  /** The node agent's back-off between restarts of a crash-looping container (see node-agent.ts). */
  readonly crashLoopBackOff?: NodeAgentOptions['crashLoopBackOff'];
  /** Run the Pods' containers for real as processes (node-agent.ts) instead of reporting outcomes. */
  readonly processes?: ProcessRuntimeOptions;
}

export async function startKubeCluster(options: KubeClusterOptions = {}): Promise<KubeCluster> {
  const server = await startKubeApiServer();
  const kube = kubeClient(server);
  const parts: { controllers?: KubeControllers; agent?: NodeAgent } = {};
  const dispose = async (): Promise<void> => {
    try {
      await parts.agent?.stop();
      await parts.controllers?.dispose();
    } finally {
      await server.dispose();
    }
  };
  try {
    for (const file of options.crdFiles ?? []) await installCrd(kube, file);
    const [controllers, agent] = await Promise.allSettled([
      startKubeControllers(server),
      startNodeAgent(server, {
        defaultOutcome: options.defaultOutcome,
        ...(options.crashLoopBackOff ? { crashLoopBackOff: options.crashLoopBackOff } : {}),
        ...(options.processes ? { processes: options.processes } : {}),
      }),
    ]);
    if (controllers.status === 'fulfilled') parts.controllers = controllers.value;
    if (agent.status === 'fulfilled') parts.agent = agent.value;
    if (controllers.status === 'rejected') throw controllers.reason;
    if (agent.status === 'rejected') throw agent.reason;
    return { server, kube, controllers: controllers.value, agent: agent.value, dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}
