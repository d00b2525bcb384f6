import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { renderShop, manifestList, type KubeObject, type Shop } from '../src/index.ts';
import { readShopFile } from '../src/shop-file.ts';
import { minimalShop } from './support/shops.ts';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const EXAMPLE = 'cdk8s/examples/shop.yaml';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function synth(...args: string[]): Promise<Run> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['cdk8s/src/synth.ts', ...args], { cwd: REPO_ROOT });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('npm run synth', () => {
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'shop-synth-'));
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  const shopFile = async (name: string, text: string) => {
    const file = path.join(scratch, name);
    await writeFile(file, text);
    return file;
  };

  it('is the root script `synth`', async () => {
    const { default: rootPackage } = await import('../../package.json', { with: { type: 'json' } });
    expect(rootPackage.scripts.synth).toBe('node cdk8s/src/synth.ts');
  });

  it('prints the objects of the example Shop as parseable multi-document YAML, the migration Job first', async () => {
    const run = await synth(EXAMPLE);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const documents = parseAllDocuments(run.stdout);
    const errors = documents.flatMap((document) => ('errors' in document ? document.errors : [document]));
    expect(errors).toEqual([]);
    const objects = documents.map((document) => document.toJS() as KubeObject);
    expect(objects.map((object) => `${object.kind}/${object.metadata.name}`)).toEqual([
      'Job/acme-migrate-1-4-0-ef83d5fc',
      'ConfigMap/acme-config-a974061e4d',
      'NetworkPolicy/acme-default-deny',
      'NetworkPolicy/acme-api',
      'NetworkPolicy/acme-worker',
      'NetworkPolicy/acme-consumer',
      'Deployment/acme-api',
      'Service/acme-api',
      'PodDisruptionBudget/acme-api',
      'HorizontalPodAutoscaler/acme-api',
      'Deployment/acme-worker',
      'PodDisruptionBudget/acme-worker',
      'Deployment/acme-consumer',
    ]);
    expect(objects).toEqual(manifestList(renderShop(await readShopFile(path.join(REPO_ROOT, EXAMPLE)))));
  });

  it('fails with one line naming the file when the file does not exist', async () => {
    const run = await synth('cdk8s/examples/no-such-shop.yaml');
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe('synth: cdk8s/examples/no-such-shop.yaml: cannot read the Shop file: no such file\n');
  });

  it('fails with one line when the file is not YAML', async () => {
    const run = await synth(await shopFile('broken.yaml', 'spec: [unclosed\n'));
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/^synth: .*broken\.yaml: not valid YAML: .+\n$/);
  });

  it('fails with one line naming the field when the file is not a valid Shop', async () => {
    const shop = minimalShop() as unknown as { spec: { image: Record<string, unknown> } };
    delete shop.spec.image.tag;
    const run = await synth(await shopFile('no-tag.yaml', stringify(shop)));
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/^synth: .*no-tag\.yaml: not a valid Shop: shop\.spec\.image\.tag: is required\n$/);
  });

  it('fails with one line when the Shop name cannot name its objects', async () => {
    const run = await synth(await shopFile('bad-name.yaml', stringify(minimalShop((s) => (s.metadata = { name: 'Acme_Shop' })))));
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/^synth: .*bad-name\.yaml: not a valid Shop: metadata\.name: "Acme_Shop" must be .+\n$/);
  });

  it('prints its usage without a file', async () => {
    const run = await synth();
    expect(run.code).toBe(64);
    expect(run.stderr).toMatch(/^usage: /);
  });
});

describe('reading a Shop file', () => {
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'shop-file-'));
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  const problem = async (shop: unknown) => {
    const file = path.join(scratch, 'shop.yaml');
    await writeFile(file, stringify(shop));
    return readShopFile(file).then(
      () => undefined,
      (error: Error) => error.message.replace(`${file}: not a valid Shop: `, ''),
    );
  };

  it('accepts the example and a minimal Shop', async () => {
    expect(await problem(minimalShop())).toBeUndefined();
    expect((await readShopFile(path.join(REPO_ROOT, EXAMPLE))).metadata?.name).toBe('acme');
  });

  const invalid: Array<[string, (shop: Shop) => void, string]> = [
    ['a tag that is a number', (shop) => Object.assign(shop.spec.image, { tag: 1.4 }), 'shop.spec.image.tag: must be a string'],
    [
      'an unknown pull policy',
      (shop) => Object.assign(shop.spec.image, { pullPolicy: 'Sometimes' }),
      'shop.spec.image.pullPolicy: must be one of Always, IfNotPresent, Never',
    ],
    ['two consumers', (shop) => Object.assign(shop.spec, { consumer: { replicas: 2 } }), 'shop.spec.consumer.replicas: must be at most 1'],
    [
      'a misspelt field',
      (shop) => Object.assign(shop.spec, { api: { replica: 3 } }),
      'shop.spec.api.replica: is not a field of shop.spec.api',
    ],
    [
      'a malformed memory quantity',
      (shop) => Object.assign(shop.spec, { api: { resources: { limits: { memory: 'lots' } } } }),
      'shop.spec.api.resources.limits.memory: "lots" must match',
    ],
    [
      'a cpu of the wrong type',
      (shop) => Object.assign(shop.spec, { api: { resources: { limits: { cpu: true } } } }),
      'shop.spec.api.resources.limits.cpu: has the wrong type',
    ],
    [
      'a config value that is not a string',
      (shop) => Object.assign(shop.spec, { config: { DATABASE_POOL_MAX: 10 } }),
      'shop.spec.config.DATABASE_POOL_MAX: must be a string',
    ],
    ['another kind', (shop) => Object.assign(shop, { kind: 'Deployment' }), 'shop.kind: must be Shop, not Deployment'],
    ['no name', (shop) => Object.assign(shop, { metadata: { namespace: 'shops' } }), 'shop.metadata.name: is required'],
  ];
  for (const [what, spoil, message] of invalid) {
    it(`rejects ${what}, naming the field`, async () => {
      expect(await problem(minimalShop(spoil))).toContain(message);
    });
  }
});
