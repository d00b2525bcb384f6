import { KubeConfig } from '@kubernetes/client-node';
import { startKubeApiServer, type KubeApiServer } from '../../../test/infra/kubernetes.ts';
import { installCrd, kubeClient, type KubeRequest } from '../../../test/infra/kube-client.ts';

export { installCrd } from '../../../test/infra/kube-client.ts';

const CRD_FILE = new URL('../../crd/shops.shop.dev.yaml', import.meta.url);

/** A real API server with the Shop CRD installed, shared by the tests of one file. */
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

export async function startTestCluster(): Promise<TestCluster> {
  const server = await startKubeApiServer();
  const kube = kubeClient(server);
  await installCrd(kube, CRD_FILE);
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
    dispose: () => server.dispose(),
  };
}

export function expectStatus(reply: { status: number; body: unknown }, expected: number): void {
  if (reply.status !== expected) throw new Error(`expected HTTP ${expected}, got ${reply.status}: ${JSON.stringify(reply.body)}`);
}
