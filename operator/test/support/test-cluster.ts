import { readFile } from 'node:fs/promises';
import { KubeConfig } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { startKubeApiServer, type KubeApiServer } from '../../../test/infra/kubernetes.ts';
import { kubeClient, type KubeRequest } from '../../../test/infra/kube-client.ts';
import { eventually } from '../../../test/support/wait.ts';

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

/** Creates the CRD of a manifest file and waits until the API server serves its kind. */
export async function installCrd(kube: KubeRequest, file: string | URL): Promise<void> {
  const crd = parse(await readFile(file, 'utf8')) as { metadata: { name: string } };
  expectStatus(await kube('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd), 201);
  await eventually(async () => {
    const { body } = await kube<{ status?: { conditions?: Array<{ type: string; status: string }> } }>(
      'GET',
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`,
    );
    if (!body.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) throw new Error(`the CRD ${crd.metadata.name} is not established`);
  });
}

export function expectStatus(reply: { status: number; body: unknown }, expected: number): void {
  if (reply.status !== expected) throw new Error(`expected HTTP ${expected}, got ${reply.status}: ${JSON.stringify(reply.body)}`);
}
