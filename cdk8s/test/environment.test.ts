import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { VARIABLES } from '../../services/platform/src/config/variables.ts';
import { GENERATED_KEYS, renderShop, type KubeObject } from '../src/index.ts';
import { API, CONSUMER, MIGRATE_COMMAND, REWRAP_COMMAND, SEED_COMMAND, WORKER } from '../src/components.ts';
import { SPEC_DEFAULTS } from '../src/shop-context.ts';
import { containerOf, minimalShop, type EnvVar } from './shops.ts';

const secretRef = (env: EnvVar[], name: string) => env.find((variable) => variable.name === name)?.valueFrom?.secretKeyRef;
const everyContainerEnv = (manifests: ReturnType<typeof renderShop>): EnvVar[][] =>
  [manifests.migrationJob, manifests.api.deployment, manifests.worker.deployment, manifests.consumer.deployment].map(
    (object: KubeObject) => containerOf(object).env,
  );

describe('environment', () => {
  it('reads the plain configuration from the ConfigMap in every container', () => {
    const manifests = renderShop(minimalShop((shop) => (shop.spec.config = { LOG_LEVEL: 'DEBUG' })));
    expect(manifests.configMap).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', data: { LOG_LEVEL: 'DEBUG' } });
    for (const object of [manifests.migrationJob, manifests.api.deployment, manifests.worker.deployment, manifests.consumer.deployment]) {
      expect(containerOf(object).envFrom).toEqual([{ configMapRef: { name: manifests.configMap.metadata.name } }]);
      expect(containerOf(object).env.map((variable) => variable.name)).not.toContain('LOG_LEVEL');
    }
  });

  it('takes every referenced secret from the Secret and key the spec names', () => {
    const manifests = renderShop(
      minimalShop((shop) =>
        Object.assign(shop.spec.secrets, {
          workflowHost: { name: 'temporal', key: 'address' },
          secretKey: { name: 'jwt', key: 'signing' },
          secretsMasterKey: { name: 'vault', key: 'master' },
          secretsMasterKeyRotatingFrom: { name: 'vault', key: 'earlier' },
          adminSearchApiKey: { name: 'search', key: 'admin' },
          storefrontSearchApiKey: { name: 'search', key: 'storefront' },
          storefrontSearchOnlyKey: { name: 'search', key: 'search-only' },
          s3AccessKey: { name: 's3', key: 'access' },
          s3SecretKey: { name: 's3', key: 'secret' },
        }),
      ),
    );
    for (const env of everyContainerEnv(manifests)) {
      expect(secretRef(env, 'DATABASE_URL')).toEqual({ name: 'acme-database', key: 'url' });
      expect(secretRef(env, 'CACHE_URL')).toEqual({ name: 'acme-cache', key: 'url' });
      expect(secretRef(env, 'BROKER_ADDRESS')).toEqual({ name: 'acme-kafka', key: 'bootstrap' });
      expect(secretRef(env, 'WORKFLOW_HOST')).toEqual({ name: 'temporal', key: 'address' });
      expect(secretRef(env, 'SECRET_KEY')).toEqual({ name: 'jwt', key: 'signing' });
      expect(secretRef(env, 'SECRETS_MASTER_KEY')).toEqual({ name: 'vault', key: 'master' });
      expect(secretRef(env, 'SECRETS_MASTER_KEY_ROTATING_FROM')).toEqual({ name: 'vault', key: 'earlier' });
      expect(secretRef(env, 'ADMIN_SEARCH_API_KEY')).toEqual({ name: 'search', key: 'admin' });
      expect(secretRef(env, 'STOREFRONT_SEARCH_API_KEY')).toEqual({ name: 'search', key: 'storefront' });
      expect(secretRef(env, 'STOREFRONT_SEARCH_ONLY_KEY')).toEqual({ name: 'search', key: 'search-only' });
      expect(secretRef(env, 'S3_ACCESS_KEY')).toEqual({ name: 's3', key: 'access' });
      expect(secretRef(env, 'S3_SECRET_KEY')).toEqual({ name: 's3', key: 'secret' });
      // A referenced master key is rotated by whoever owns it: nothing points at the generated Secret.
      expect(env.some((variable) => variable.valueFrom?.secretKeyRef?.name === 'acme-generated-keys')).toBe(false);
    }
  });

  it("takes SECRET_KEY and SECRETS_MASTER_KEY from the operator's generated Secret when the spec does not reference them", () => {
    for (const env of everyContainerEnv(renderShop(minimalShop()))) {
      expect(secretRef(env, 'SECRET_KEY')).toEqual({ name: 'acme-generated-keys', key: GENERATED_KEYS.secretKey });
      expect(secretRef(env, 'SECRETS_MASTER_KEY')).toEqual({ name: 'acme-generated-keys', key: GENERATED_KEYS.secretsMasterKey });
      expect(secretRef(env, 'SECRETS_MASTER_KEY_ROTATING_FROM')).toEqual({
        name: 'acme-generated-keys',
        key: GENERATED_KEYS.secretsMasterKeyRotatingFrom,
        optional: true,
      });
    }
  });

  it('mixes the two: a referenced SECRET_KEY with a generated master key', () => {
    const env = containerOf(renderShop(minimalShop((shop) => (shop.spec.secrets.secretKey = { name: 'jwt', key: 'k' }))).api.deployment).env;
    expect(secretRef(env, 'SECRET_KEY')).toEqual({ name: 'jwt', key: 'k' });
    expect(secretRef(env, 'SECRETS_MASTER_KEY')).toEqual({ name: 'acme-generated-keys', key: 'secrets-master-key' });
  });

  it('leaves out the optional secrets the spec leaves out', () => {
    const names = containerOf(renderShop(minimalShop()).api.deployment).env.map((variable) => variable.name);
    for (const absent of ['WORKFLOW_HOST', 'ADMIN_SEARCH_API_KEY', 'STOREFRONT_SEARCH_API_KEY', 'STOREFRONT_SEARCH_ONLY_KEY', 'S3_ACCESS_KEY', 'S3_SECRET_KEY']) {
      expect(names).not.toContain(absent);
    }
    expect(names).toEqual([
      'NODE_ENV',
      'PORT',
      'DATABASE_URL',
      'CACHE_URL',
      'BROKER_ADDRESS',
      'SECRET_KEY',
      'SECRETS_MASTER_KEY',
      'SECRET_KEY_PREVIOUS',
      'SECRETS_MASTER_KEY_ROTATING_FROM',
    ]);
  });

  it('sets spec.fileStorage as plain variables in every container, which win over the same ones in spec.config', () => {
    const manifests = renderShop(
      minimalShop((shop) => {
        shop.spec.config = { S3_BUCKET: 'from-config' };
        shop.spec.fileStorage = { provider: 's3', s3: { endpoint: 'https://s3.example.com', bucket: 'media', publicUrl: 'https://cdn.example.com' } };
        Object.assign(shop.spec.secrets, { s3AccessKey: { name: 's3', key: 'access' }, s3SecretKey: { name: 's3', key: 'secret' } });
      }),
    );
    for (const env of everyContainerEnv(manifests)) {
      const plain = Object.fromEntries(env.filter((variable) => variable.value !== undefined).map((variable) => [variable.name, variable.value]));
      expect(plain).toMatchObject({ FILE_STORAGE_PROVIDER: 's3', S3_ENDPOINT: 'https://s3.example.com', S3_BUCKET: 'media', S3_PUBLIC_URL: 'https://cdn.example.com' });
      expect(secretRef(env, 'S3_ACCESS_KEY')).toEqual({ name: 's3', key: 'access' });
      expect(secretRef(env, 'S3_SECRET_KEY')).toEqual({ name: 's3', key: 'secret' });
    }
    // The ConfigMap keeps its copy, but an explicit variable wins over envFrom.
    expect(manifests.configMap).toMatchObject({ data: { S3_BUCKET: 'from-config' } });
  });

  it('sets only the file storage variables the spec gives', () => {
    const env = containerOf(renderShop(minimalShop((shop) => (shop.spec.fileStorage = { s3: { endpoint: 'http://minio.storage:9000', bucket: 'media' } }))).worker.deployment).env;
    const names = env.map((variable) => variable.name);
    expect(names).toEqual(expect.arrayContaining(['S3_ENDPOINT', 'S3_BUCKET']));
    for (const absent of ['FILE_STORAGE_PROVIDER', 'S3_PUBLIC_URL', 'S3_ACCESS_KEY', 'S3_SECRET_KEY']) expect(names).not.toContain(absent);
  });

  it('gives no secret a literal value: each comes from a Secret', () => {
    const secretNames = new Set(VARIABLES.filter((variable) => variable.secret).map((variable) => variable.name));
    for (const env of everyContainerEnv(renderShop(minimalShop()))) {
      for (const variable of env.filter((v) => secretNames.has(v.name))) expect(variable.value).toBeUndefined();
    }
  });
});

describe('agreement with the rest of the repository', () => {
  it('maps every secret variable of the platform from the spec or the generated Secret', () => {
    const full = renderShop(
      minimalShop((shop) => {
        for (const field of ['workflowHost', 'adminSearchApiKey', 'storefrontSearchApiKey', 'storefrontSearchOnlyKey', 's3AccessKey', 's3SecretKey'] as const) {
          shop.spec.secrets[field] = { name: 'any', key: field };
        }
      }),
    );
    const names = containerOf(full.api.deployment).env.map((variable) => variable.name);
    for (const variable of VARIABLES.filter((v) => v.secret)) expect(names).toContain(variable.name);
  });

  it('renders spec.fileStorage into variables the platform reads', () => {
    const env = containerOf(renderShop(minimalShop((shop) => (shop.spec.fileStorage = { provider: 's3', s3: { endpoint: 'https://s3.example.com', bucket: 'media', publicUrl: 'https://cdn.example.com' } }))).api.deployment).env;
    const platformVariables = new Set(VARIABLES.map((variable) => variable.name));
    const rendered = env.filter((variable) => variable.name.startsWith('S3_') || variable.name.startsWith('FILE_STORAGE_')).map((variable) => variable.name);
    expect(rendered).toHaveLength(4);
    for (const name of rendered) expect(platformVariables).toContain(name);
  });

  it('sets the ports the platform reads by default (PORT, CONSUMER_PORT, WORKER_PORT)', () => {
    const defaults = Object.fromEntries(VARIABLES.map((variable) => [variable.name, variable.defaultValue]));
    for (const process of [API, WORKER, CONSUMER]) expect(String(process.http.port)).toBe(defaults[process.http.variable]);
  });

  it('migrates with the command behind `npm run db:migrate`, writing its summary as the termination message', async () => {
    const rootPackage = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
    expect(MIGRATE_COMMAND.join(' ')).toBe(`${rootPackage.scripts['db:migrate']} --summary-file=/dev/termination-log`);
  });

  it('names the command behind `npm run db:seed` for the operator\'s seed Job, the admin alone', async () => {
    const rootPackage = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
    expect(SEED_COMMAND.join(' ')).toBe(`${rootPackage.scripts['db:seed']} --admin-only`);
  });

  it('names the command behind `npm run secrets:rewrap` for the operator\'s rewrap Job, writing its summary as the termination message', async () => {
    const rootPackage = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
    expect(REWRAP_COMMAND.join(' ')).toBe(`${rootPackage.scripts['secrets:rewrap']} --summary-file=/dev/termination-log`);
  });

  it('falls back on the defaults of the Shop schema', async () => {
    const schema = JSON.parse(await readFile(new URL('../../schemas/crd/shop.v1alpha1.json', import.meta.url), 'utf8'));
    const spec = schema.properties.spec.properties;
    expect(SPEC_DEFAULTS).toEqual({
      pullPolicy: spec.image.properties.pullPolicy.default,
      apiReplicas: spec.api.properties.replicas.default,
      workerReplicas: spec.worker.properties.replicas.default,
    });
  });
});
