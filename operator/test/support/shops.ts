import type { Shop, ShopSpec } from '@shop/cdk8s';
import type { KubeRequest } from '../../../test/infra/kube-client.ts';
import { expectStatus } from './test-cluster.ts';

export const shopsPath = (namespace: string) => `/apis/shop.dev/v1alpha1/namespaces/${namespace}/shops`;

export function shopManifest(name: string, tag: string, spec: Partial<ShopSpec> = {}): Shop {
  return {
    apiVersion: 'shop.dev/v1alpha1',
    kind: 'Shop',
    metadata: { name },
    spec: {
      image: { repository: 'registry.example.com/shop/platform', tag },
      secrets: {
        databaseUrl: { name: 'shop-db', key: 'url' },
        cacheUrl: { name: 'shop-cache', key: 'url' },
        brokerAddress: { name: 'shop-kafka', key: 'bootstrap' },
      },
      ...spec,
    },
  };
}

/** The Secrets shopManifest references. */
export async function createReferencedSecrets(kube: KubeRequest, namespace: string): Promise<void> {
  const secrets = { 'shop-db': 'url', 'shop-cache': 'url', 'shop-kafka': 'bootstrap' };
  for (const [name, key] of Object.entries(secrets)) {
    const body = { metadata: { name }, stringData: { [key]: `${name}.example:1234` } };
    expectStatus(await kube('POST', `/api/v1/namespaces/${namespace}/secrets`, body), 201);
  }
}

export async function createShop(kube: KubeRequest, namespace: string, shop: Shop): Promise<void> {
  expectStatus(await kube('POST', shopsPath(namespace), shop), 201);
}

export async function readShop(kube: KubeRequest, namespace: string, name: string): Promise<Shop & { metadata: { generation: number } }> {
  const reply = await kube<Shop & { metadata: { generation: number } }>('GET', `${shopsPath(namespace)}/${name}`);
  expectStatus(reply, 200);
  return reply.body;
}

/** Changes the Shop's spec (a new generation) or its metadata. */
export async function updateShop(kube: KubeRequest, namespace: string, name: string, change: (shop: Shop) => void): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    const shop = await readShop(kube, namespace, name);
    change(shop);
    const reply = await kube('PUT', `${shopsPath(namespace)}/${name}`, shop);
    if (reply.status === 200) return;
    if (reply.status !== 409 || attempt === 5) expectStatus(reply, 200);
  }
}
