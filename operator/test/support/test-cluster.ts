import { KubeConfig } from '@kubernetes/client-node';
import type { KubeRequest } from '../../../test/infra/kube-client.ts';
import { startKubeCluster, type KubeClusterOptions } from '../../../test/infra/kube-cluster.ts';
import type { KubeApiServer } from '../../../test/infra/kubernetes.ts';

export { installCrd } from '../../../test/infra/kube-client.ts';

const CRD_FILE = new URL('../../crd/shops.shop.dev.yaml', import.meta.url);

/**
 * A real API server with the Shop CRD installed, shared by the tests of one file, with the controllers,
 * the scheduler and the node agent. The agent holds every pod (never started) until a test moves it on
 * with test/infra/workloads.ts (completeJob, markDeploymentAvailable, ...), so each test steps the rollout.
 */
export interface TestCluster {
  readonly server: KubeApiServer;
  /** Plain JSON requests as the cluster admin. */
  readonly kube: KubeRequest;
  /** A KubeConfig for the operator. */
  kubeConfig(): KubeConfig;
  /** Creates a namespace named after `prefix`, unique within the file. */
  namespace(prefix: string): Promise<string>;
  dispose(): Promise<void>;
}

/** The node agent's behaviour (kube-cluster.ts); by default it holds every pod, never started. */
export type TestClusterOptions = Pick<KubeClusterOptions, 'defaultOutcome' | 'crashLoopBackOff'>;

export async function startTestCluster(options: TestClusterOptions = {}): Promise<TestCluster> {
  const { server, kube, dispose } = await startKubeCluster({ defaultOutcome: 'pending', ...options, crdFiles: [CRD_FILE] });
  let namespaces = 0;
  return {
    server,
    kube,
    kubeConfig: () => {
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromFile(server.kubeconfigPath());
      return kubeConfig;
    },
    namespace: async (prefix) => {
      namespaces += 1;
      const name = `${prefix}-${namespaces}`;
      expectStatus(await kube('POST', '/api/v1/namespaces', { metadata: { name } }), 201);
      return name;
    },
    dispose,
  };
}

export function expectStatus(reply: { status: number; body: unknown }, expected: number): void {
  if (reply.status !== expected) throw new Error(`expected HTTP ${expected}, got ${reply.status}: ${JSON.stringify(reply.body)}`);
}
