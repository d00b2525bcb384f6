import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubeApiServer, type KubeApiServer } from '../../test/infra/kubernetes.ts';
import { installCrd, kubeClient, type KubeRequest } from '../../test/infra/kube-client.ts';
import { CRD_FILE, renderCrd, renderTypes, TYPES_FILE } from '../src/crd/generate-crd.ts';
import type { Shop } from '@shop/cdk8s';

describe('generated files', () => {
  it('the CRD and the operator types match schemas/crd/shop.v1alpha1.json (npm run crd:generate)', async () => {
    expect(await readFile(CRD_FILE, 'utf8')).toBe(await renderCrd());
    expect(await readFile(TYPES_FILE, 'utf8')).toBe(await renderTypes());
  });
});

describe('the Shop CRD on a real API server', () => {
  let server: KubeApiServer;
  let kube: KubeRequest;
  const namespace = 'shops-crd-test';
  const shops = `/apis/shop.dev/v1alpha1/namespaces/${namespace}/shops`;

  const validShop = (name: string): Shop => ({
    apiVersion: 'shop.dev/v1alpha1',
    kind: 'Shop',
    metadata: { name },
    spec: {
      image: { repository: 'registry.example.com/shop/platform', tag: '1.4.0' },
      secrets: {
        databaseUrl: { name: 'shop-db', key: 'url' },
        cacheUrl: { name: 'shop-cache', key: 'url' },
        brokerAddress: { name: 'shop-kafka', key: 'bootstrap' },
      },
    },
  });

  beforeAll(async () => {
    server = await startKubeApiServer();
    kube = kubeClient(server);
    await installCrd(kube, CRD_FILE);
    expect((await kube('POST', '/api/v1/namespaces', { metadata: { name: namespace } })).status).toBe(201);
  }, 180_000);

  afterAll(async () => {
    await server?.dispose();
  });

  it('accepts a minimal Shop and fills in the defaults', async () => {
    const created = await kube<Shop>('POST', shops, validShop('minimal'));
    expect(created.status).toBe(201);
    expect(created.body.spec).toMatchObject({
      image: { pullPolicy: 'IfNotPresent' },
      api: { replicas: 2 },
      worker: { replicas: 1 },
      consumer: { replicas: 1 },
      monitoring: { dashboards: { enabled: false }, alerts: { enabled: false } },
      keyRotation: { enabled: false, interval: '720h', retention: '336h' },
    });
  });

  const invalid: Array<[string, (shop: Shop) => void, RegExp]> = [
    [
      'an unknown pull policy',
      (shop) => (shop.spec.image.pullPolicy = 'Sometimes' as never),
      /spec\.image\.pullPolicy: Unsupported value: "Sometimes"/,
    ],
    [
      'two consumers',
      (shop) => (shop.spec.consumer = { replicas: 2 }),
      /spec\.consumer\.replicas: Invalid value: 2: spec\.consumer\.replicas in body should be less than or equal to 1/,
    ],
    ['no api replica', (shop) => (shop.spec.api = { replicas: 0 }), /spec\.api\.replicas: Invalid value: 0/],
    [
      'a missing database secret',
      (shop) => delete (shop.spec.secrets as Partial<Shop['spec']['secrets']>).databaseUrl,
      /spec\.secrets\.databaseUrl: Required value/,
    ],
    [
      'a malformed rotation interval',
      (shop) => (shop.spec.keyRotation = { interval: 'monthly' }),
      /spec\.keyRotation\.interval in body should match/,
    ],
    [
      'earlier master keys without a supplied master key',
      (shop) => (shop.spec.secrets.secretsMasterKeyRotatingFrom = { name: 'keys', key: 'old' }),
      /spec\.secrets\.secretsMasterKeyRotatingFrom: Invalid value: secretsMasterKeyRotatingFrom needs secretsMasterKey/,
    ],
    [
      'a malformed memory quantity',
      (shop) => (shop.spec.api = { resources: { limits: { memory: 'lots' } } }),
      /spec\.api\.resources\.limits\.memory/,
    ],
    [
      'local file storage, which production refuses',
      (shop) => (shop.spec.fileStorage = { provider: 'local' }),
      /spec\.fileStorage\.provider: Invalid value: "local": local file storage is refused in production/,
    ],
    [
      'an s3 section without a bucket',
      (shop) => (shop.spec.fileStorage = { s3: { endpoint: 'https://s3.example.com' } as never }),
      /spec\.fileStorage\.s3\.bucket: Required value/,
    ],
    [
      'an s3 endpoint that is no http(s) URL',
      (shop) => (shop.spec.fileStorage = { s3: { endpoint: 's3.example.com', bucket: 'media' } }),
      /spec\.fileStorage\.s3\.endpoint in body should match/,
    ],
    [
      'an S3 access key without its secret key',
      (shop) => (shop.spec.secrets.s3AccessKey = { name: 's3', key: 'access' }),
      /spec\.secrets\.s3AccessKey: Invalid value: s3AccessKey and s3SecretKey are set together/,
    ],
  ];
  for (const [what, spoil, message] of invalid) {
    it(`rejects ${what} with a message naming the field`, async () => {
      const shop = validShop(`invalid-${what.replace(/[^a-z]+/g, '-').replace(/^-|-$/g, '')}`);
      spoil(shop);
      const rejected = await kube<{ message: string }>('POST', shops, shop);
      expect(rejected.status).toBe(422);
      expect(rejected.body.message).toMatch(message);
    });
  }

  it('accepts object storage: the s3 fields and the keys from a Secret', async () => {
    const shop = validShop('object-storage');
    shop.spec.fileStorage = {
      provider: 's3',
      s3: { endpoint: 'https://s3.eu-west-1.amazonaws.com', bucket: 'acme-media', publicUrl: 'https://cdn.example.com' },
    };
    Object.assign(shop.spec.secrets, {
      s3AccessKey: { name: 'acme-s3', key: 'access-key' },
      s3SecretKey: { name: 'acme-s3', key: 'secret-key' },
    });
    const created = await kube<Shop>('POST', shops, shop);
    expect(created.status).toBe(201);
    expect(created.body.spec.fileStorage).toEqual(shop.spec.fileStorage);
  });

  it('accepts a rotation interval in seconds, for short rotations', async () => {
    const shop = validShop('seconds');
    shop.spec.keyRotation = { interval: '90s', retention: '900s' };
    expect((await kube('POST', shops, shop)).status).toBe(201);
  });

  it('refuses to switch a live Shop between a generated and a supplied master key unless allowKeySourceSwitch is set', async () => {
    const path = `${shops}/switching-keys`;
    expect((await kube('POST', shops, validShop('switching-keys'))).status).toBe(201);
    const switchTo = async (change: (shop: Shop) => void) => {
      const stored = (await kube<Shop>('GET', path)).body;
      change(stored);
      return kube<{ message: string }>('PUT', path, stored);
    };
    const supplied = { name: 'keys', key: 'master' };

    const refused = await switchTo((shop) => (shop.spec.secrets.secretsMasterKey = supplied));
    expect(refused.status).toBe(422);
    expect(refused.body.message).toMatch(/switching secrets\.secretsMasterKey between a generated and a supplied key on a live Shop/);

    const forced = await switchTo((shop) => {
      shop.spec.secrets.secretsMasterKey = supplied;
      shop.spec.keyRotation = { ...shop.spec.keyRotation, allowKeySourceSwitch: true };
    });
    expect(forced.status).toBe(200);
    // Back to generated, again only when forced; the flag still set forces it.
    const back = await switchTo((shop) => delete shop.spec.secrets.secretsMasterKey);
    expect(back.status).toBe(200);
    const unforced = await switchTo((shop) => {
      shop.spec.secrets.secretsMasterKey = supplied;
      shop.spec.keyRotation = { ...shop.spec.keyRotation, allowKeySourceSwitch: false };
    });
    expect(unforced.status).toBe(422);
  });

  it('keeps status in its own subresource and shows the printer columns', async () => {
    const created = await kube<Shop & { metadata: { resourceVersion: string } }>('POST', shops, validShop('with-status'));
    const status = { phase: 'Migrating', observedGeneration: 1, migratedVersion: '1.3.0' };
    const updated = await kube<Shop>('PUT', `${shops}/with-status/status`, {
      ...created.body,
      status,
      spec: { ...created.body.spec, api: { replicas: 9 } },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.status).toMatchObject(status);
    expect(updated.body.spec.api?.replicas).toBe(2);

    const table = await fetchTable(`${shops}/with-status`);
    expect(table.columnDefinitions.map((column) => column.name)).toEqual(['Name', 'Phase', 'Version', 'Migrated', 'Ready', 'Age']);
    expect(table.rows[0]?.cells.slice(1, 4)).toEqual(['Migrating', '1.4.0', '1.3.0']);
  });

  async function fetchTable(path: string): Promise<{ columnDefinitions: Array<{ name: string }>; rows: Array<{ cells: unknown[] }> }> {
    const response = await fetch(new URL(path, server.url), {
      headers: { authorization: `Bearer ${server.token}`, accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
    });
    return (await response.json()) as { columnDefinitions: Array<{ name: string }>; rows: Array<{ cells: unknown[] }> };
  }
});
