import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../services/platform/src/config/config.ts';
import { VARIABLES } from '../../services/platform/src/config/variables.ts';
import { extensionConfigProblems, repositoryVariables } from '../../test/support/extensions.ts';
import { readConsumerSettings } from '../../services/consumer/src/settings.ts';
import { workerProblems } from '../../services/worker/src/worker-settings.ts';
import {
  GENERATED_KEYS,
  renderShop,
  WORKLOAD_SECRETS,
  type KubeObject,
  type SecretUse,
  type SecretVariable,
  type Workload,
} from '../src/index.ts';
import { API, CONSUMER, MIGRATE_COMMAND, REWRAP_COMMAND, SEED_COMMAND, WORKER } from '../src/components.ts';
import { SPEC_DEFAULTS } from '../src/shop-context.ts';
import { containerOf, minimalShop, type EnvVar } from './support/shops.ts';

const secretRef = (env: readonly EnvVar[], name: string) => env.find((variable) => variable.name === name)?.valueFrom?.secretKeyRef;
const everyContainerEnv = (manifests: ReturnType<typeof renderShop>): EnvVar[][] =>
  [manifests.migrationJob, manifests.api.deployment, manifests.worker.deployment, manifests.consumer.deployment].map(
    (object: KubeObject) => containerOf(object).env,
  );
/** The explicit variables of every workload: the rendered containers', and those the operator gives the Jobs it derives from the migration Job. */
const workloadEnvs = (manifests: ReturnType<typeof renderShop>): Array<[Workload, readonly EnvVar[]]> => [
  ['api', containerOf(manifests.api.deployment).env],
  ['worker', containerOf(manifests.worker.deployment).env],
  ['consumer', containerOf(manifests.consumer.deployment).env],
  ['migrations', containerOf(manifests.migrationJob).env],
  ['seed', manifests.jobEnvironments.seed as EnvVar[]],
  ['key-rewrap', manifests.jobEnvironments['key-rewrap'] as EnvVar[]],
];
const secretNames = (env: readonly EnvVar[]) =>
  env
    .filter((variable) => variable.valueFrom?.secretKeyRef)
    .map((variable) => variable.name)
    .sort();
/** The variables a workload's table gives it, from a Shop referencing every secret (SECRET_KEY_PREVIOUS comes only from the generated Secret). */
const givenVariables = (workload: Workload) =>
  (Object.entries(WORKLOAD_SECRETS[workload]) as Array<[SecretVariable, SecretUse]>)
    .filter(([variable, use]) => use !== false && variable !== 'SECRET_KEY_PREVIOUS')
    .map(([variable]) => variable)
    .sort();

const FULL_REFERENCES: Partial<Record<SecretVariable, { name: string; key: string }>> = {
  DATABASE_URL: { name: 'acme-database', key: 'url' },
  CACHE_URL: { name: 'acme-cache', key: 'url' },
  BROKER_ADDRESS: { name: 'acme-kafka', key: 'bootstrap' },
  WORKFLOW_HOST: { name: 'temporal', key: 'address' },
  SECRET_KEY: { name: 'jwt', key: 'signing' },
  SECRETS_MASTER_KEY: { name: 'vault', key: 'master' },
  SECRETS_MASTER_KEY_ROTATING_FROM: { name: 'vault', key: 'earlier' },
  ADMIN_SEARCH_API_KEY: { name: 'search', key: 'admin' },
  STOREFRONT_SEARCH_API_KEY: { name: 'search', key: 'storefront' },
  STOREFRONT_SEARCH_ONLY_KEY: { name: 'search', key: 'search-only' },
  S3_ACCESS_KEY: { name: 's3', key: 'access' },
  S3_SECRET_KEY: { name: 's3', key: 'secret' },
};

/** A Shop that references every secret of spec.secrets. */
const fullShop = () =>
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

  it('takes every referenced secret from the Secret and key the spec names, in each workload whose table gives it', () => {
    const manifests = renderShop(fullShop());
    for (const [workload, env] of workloadEnvs(manifests)) {
      const given = secretNames(env);
      expect(given, workload).toEqual(givenVariables(workload));
      for (const variable of given)
        expect(secretRef(env, variable), `${workload} ${variable}`).toEqual(FULL_REFERENCES[variable as SecretVariable]);
      // A referenced master key is rotated by whoever owns it: nothing points at the generated Secret.
      expect(env.some((variable) => variable.valueFrom?.secretKeyRef?.name === 'acme-generated-keys')).toBe(false);
    }
    expect(givenVariables('api')).toHaveLength(Object.keys(WORKLOAD_SECRETS.api).length - 1); // all but SECRET_KEY_PREVIOUS, which is generated only
  });

  it("takes SECRET_KEY and SECRETS_MASTER_KEY from the operator's generated Secret when the spec does not reference them", () => {
    for (const [workload, env] of workloadEnvs(renderShop(minimalShop()))) {
      if (workload === 'migrations') continue;
      expect(secretRef(env, 'SECRET_KEY')).toEqual({ name: 'acme-generated-keys', key: GENERATED_KEYS.secretKey });
      expect(secretRef(env, 'SECRETS_MASTER_KEY')).toEqual({ name: 'acme-generated-keys', key: GENERATED_KEYS.secretsMasterKey });
      expect(secretRef(env, 'SECRETS_MASTER_KEY_ROTATING_FROM')).toEqual({
        name: 'acme-generated-keys',
        key: GENERATED_KEYS.secretsMasterKeyRotatingFrom,
        optional: true,
      });
      const previous = secretRef(env, 'SECRET_KEY_PREVIOUS');
      expect(previous, workload).toEqual(
        workload === 'api' ? { name: 'acme-generated-keys', key: GENERATED_KEYS.secretKeyPrevious, optional: true } : undefined,
      );
    }
  });

  it('gives each workload only the secrets its program reads or its configuration demands', () => {
    const envs = new Map(workloadEnvs(renderShop(fullShop())));
    const names = (workload: Workload) => secretNames(envs.get(workload) ?? []);
    // The migrate command reads DATABASE_URL alone.
    expect(names('migrations')).toEqual(['DATABASE_URL']);
    // The worker signs nothing it checks later, searches nothing and stores no files.
    for (const absent of [
      'SECRET_KEY_PREVIOUS',
      'ADMIN_SEARCH_API_KEY',
      'STOREFRONT_SEARCH_API_KEY',
      'STOREFRONT_SEARCH_ONLY_KEY',
      'S3_ACCESS_KEY',
      'S3_SECRET_KEY',
    ]) {
      expect(names('worker')).not.toContain(absent);
    }
    // The consumer indexes the search engines but runs no workflows, hands out no scoped keys and stores no files.
    expect(names('consumer')).toEqual(expect.arrayContaining(['ADMIN_SEARCH_API_KEY', 'STOREFRONT_SEARCH_API_KEY']));
    for (const absent of ['WORKFLOW_HOST', 'SECRET_KEY_PREVIOUS', 'STOREFRONT_SEARCH_ONLY_KEY', 'S3_ACCESS_KEY', 'S3_SECRET_KEY'])
      expect(names('consumer')).not.toContain(absent);
    // The Jobs the operator derives: the seed and the key rewrap read the master keys, neither searches nor stores files.
    for (const job of ['seed', 'key-rewrap'] as const) {
      expect(names(job)).toEqual(expect.arrayContaining(['DATABASE_URL', 'SECRETS_MASTER_KEY', 'SECRETS_MASTER_KEY_ROTATING_FROM']));
      for (const absent of ['WORKFLOW_HOST', 'SECRET_KEY_PREVIOUS', 'ADMIN_SEARCH_API_KEY', 'STOREFRONT_SEARCH_API_KEY', 'S3_ACCESS_KEY'])
        expect(names(job)).not.toContain(absent);
    }
  });

  it('mixes the two: a referenced SECRET_KEY with a generated master key', () => {
    const env = containerOf(
      renderShop(minimalShop((shop) => (shop.spec.secrets.secretKey = { name: 'jwt', key: 'k' }))).api.deployment,
    ).env;
    expect(secretRef(env, 'SECRET_KEY')).toEqual({ name: 'jwt', key: 'k' });
    expect(secretRef(env, 'SECRETS_MASTER_KEY')).toEqual({ name: 'acme-generated-keys', key: 'secrets-master-key' });
  });

  it('leaves out the optional secrets the spec leaves out', () => {
    const names = containerOf(renderShop(minimalShop()).api.deployment).env.map((variable) => variable.name);
    for (const absent of [
      'WORKFLOW_HOST',
      'ADMIN_SEARCH_API_KEY',
      'STOREFRONT_SEARCH_API_KEY',
      'STOREFRONT_SEARCH_ONLY_KEY',
      'S3_ACCESS_KEY',
      'S3_SECRET_KEY',
    ]) {
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
        shop.spec.fileStorage = {
          provider: 's3',
          s3: { endpoint: 'https://s3.example.com', bucket: 'media', publicUrl: 'https://cdn.example.com' },
        };
        Object.assign(shop.spec.secrets, { s3AccessKey: { name: 's3', key: 'access' }, s3SecretKey: { name: 's3', key: 'secret' } });
      }),
    );
    for (const env of everyContainerEnv(manifests)) {
      const plain = Object.fromEntries(
        env.filter((variable) => variable.value !== undefined).map((variable) => [variable.name, variable.value]),
      );
      expect(plain).toMatchObject({
        FILE_STORAGE_PROVIDER: 's3',
        S3_ENDPOINT: 'https://s3.example.com',
        S3_BUCKET: 'media',
        S3_PUBLIC_URL: 'https://cdn.example.com',
      });
    }
    // The keys only where files are stored: the api.
    const apiEnv = containerOf(manifests.api.deployment).env;
    expect(secretRef(apiEnv, 'S3_ACCESS_KEY')).toEqual({ name: 's3', key: 'access' });
    expect(secretRef(apiEnv, 'S3_SECRET_KEY')).toEqual({ name: 's3', key: 'secret' });
    // The ConfigMap keeps its copy, but an explicit variable wins over envFrom.
    expect(manifests.configMap).toMatchObject({ data: { S3_BUCKET: 'from-config' } });
  });

  it('sets only the file storage variables the spec gives', () => {
    const env = containerOf(
      renderShop(minimalShop((shop) => (shop.spec.fileStorage = { s3: { endpoint: 'http://minio.storage:9000', bucket: 'media' } }))).worker
        .deployment,
    ).env;
    const names = env.map((variable) => variable.name);
    expect(names).toEqual(expect.arrayContaining(['S3_ENDPOINT', 'S3_BUCKET']));
    for (const absent of ['FILE_STORAGE_PROVIDER', 'S3_PUBLIC_URL', 'S3_ACCESS_KEY', 'S3_SECRET_KEY']) expect(names).not.toContain(absent);
  });

  it('gives no secret a literal value: each comes from a Secret', async () => {
    const secretNames = new Set((await repositoryVariables()).filter((variable) => variable.secret).map((variable) => variable.name));
    for (const env of everyContainerEnv(renderShop(minimalShop()))) {
      for (const variable of env.filter((v) => secretNames.has(v.name))) expect(variable.value).toBeUndefined();
    }
  });
});

/** A valid production value for each secret variable, as a Secret would hold it. */
const SECRET_VALUES: Record<SecretVariable, string> = {
  DATABASE_URL: 'postgresql://shop:password@db.example:5432/shop',
  CACHE_URL: 'redis://cache.example:6379',
  BROKER_ADDRESS: 'kafka.example:9092',
  WORKFLOW_HOST: 'temporal.example:7233',
  SECRET_KEY: 'k'.repeat(48),
  SECRET_KEY_PREVIOUS: 'p'.repeat(48),
  SECRETS_MASTER_KEY: Buffer.alloc(32, 1).toString('base64'),
  SECRETS_MASTER_KEY_ROTATING_FROM: Buffer.alloc(32, 2).toString('base64'),
  ADMIN_SEARCH_API_KEY: 'admin-key',
  STOREFRONT_SEARCH_API_KEY: 'storefront-key',
  STOREFRONT_SEARCH_ONLY_KEY: 'search-only-key',
  S3_ACCESS_KEY: 'access',
  S3_SECRET_KEY: 'secret',
};

/** The environment a workload's container starts with: its explicit variables, secrets filled in, over a ConfigMap that sets the search engines. */
function startingEnvironment(env: readonly EnvVar[]): NodeJS.ProcessEnv {
  const config = { ADMIN_SEARCH_URL: 'http://search.example:7700', STOREFRONT_SEARCH_URL: 'http://search.example:7700' };
  const explicit = env.map((variable) => [variable.name, variable.value ?? SECRET_VALUES[variable.name as SecretVariable]] as const);
  return { ...config, ...Object.fromEntries(explicit) };
}

describe('agreement with the programs', () => {
  // Without secrets.workflowHost the worker runs no pods; it is given here so that the worker's own rules are checked too.
  const shops = {
    'every secret referenced': fullShop(),
    'the keys generated': minimalShop((shop) => (shop.spec.secrets.workflowHost = { name: 'temporal', key: 'address' })),
  };

  for (const [label, shop] of Object.entries(shops)) {
    it(`starts each program's configuration, and its extensions', with the variables rendered for it alone (${label})`, async () => {
      for (const [workload, env] of workloadEnvs(renderShop(shop))) {
        const environment = startingEnvironment(env);
        if (workload === 'migrations') {
          // The migrate command reads DATABASE_URL itself and no configuration.
          expect(environment.DATABASE_URL).toBeDefined();
          continue;
        }
        const config = loadConfig(environment);
        if (workload === 'worker') expect(workerProblems(config)).toEqual([]);
        if (workload === 'consumer') expect(readConsumerSettings(config).problems).toEqual([]);
        if (workload === 'api' || workload === 'worker' || workload === 'consumer')
          expect(await extensionConfigProblems(environment)).toEqual([]);
      }
    });
  }

  it('marks `validated` only what the configuration refuses to start without, and gives it', () => {
    for (const [workload, env] of workloadEnvs(renderShop(fullShop()))) {
      for (const [variable, use] of Object.entries(WORKLOAD_SECRETS[workload]) as Array<[SecretVariable, SecretUse]>) {
        if (use !== 'validated') continue;
        const environment = startingEnvironment(env);
        expect(environment[variable], `${workload} ${variable}`).toBeDefined();
        const without = Object.fromEntries(Object.entries(environment).filter(([name]) => name !== variable));
        expect(() => loadConfig(without), `${workload} without ${variable}`).toThrow(variable);
      }
    }
  });
});

describe('agreement with the rest of the repository', () => {
  it('maps every secret variable of the platform and its extensions from the spec or the generated Secret', async () => {
    const full = renderShop(
      minimalShop((shop) => {
        for (const field of [
          'workflowHost',
          'adminSearchApiKey',
          'storefrontSearchApiKey',
          'storefrontSearchOnlyKey',
          's3AccessKey',
          's3SecretKey',
        ] as const) {
          shop.spec.secrets[field] = { name: 'any', key: field };
        }
      }),
    );
    const names = containerOf(full.api.deployment).env.map((variable) => variable.name);
    for (const variable of (await repositoryVariables()).filter((v) => v.secret)) expect(names).toContain(variable.name);
  });

  it('renders spec.fileStorage into variables the platform and its extensions read', async () => {
    const env = containerOf(
      renderShop(
        minimalShop(
          (shop) =>
            (shop.spec.fileStorage = {
              provider: 's3',
              s3: { endpoint: 'https://s3.example.com', bucket: 'media', publicUrl: 'https://cdn.example.com' },
            }),
        ),
      ).api.deployment,
    ).env;
    const platformVariables = new Set((await repositoryVariables()).map((variable) => variable.name));
    const rendered = env
      .filter((variable) => variable.name.startsWith('S3_') || variable.name.startsWith('FILE_STORAGE_'))
      .map((variable) => variable.name);
    expect(rendered).toHaveLength(4);
    for (const name of rendered) expect(platformVariables).toContain(name);
  });

  it('sets the ports the platform reads by default (PORT, CONSUMER_PORT, WORKER_PORT)', () => {
    const defaults = Object.fromEntries(VARIABLES.map((variable) => [variable.name, variable.defaultValue]));
    for (const process of [API, WORKER, CONSUMER]) expect(String(process.http.port)).toBe(defaults[process.http.variable]);
  });

  it('migrates with the command behind `npm run db:migrate`, writing its summary as the termination message', async () => {
    const rootPackage = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(MIGRATE_COMMAND.join(' ')).toBe(`${rootPackage.scripts['db:migrate']} --summary-file=/dev/termination-log`);
  });

  it("names the command behind `npm run db:seed` for the operator's seed Job, the admin alone", async () => {
    const rootPackage = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(SEED_COMMAND.join(' ')).toBe(`${rootPackage.scripts['db:seed']} --admin-only`);
  });

  it("names the command behind `npm run secrets:rewrap` for the operator's rewrap Job, writing its summary as the termination message", async () => {
    const rootPackage = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      scripts: Record<string, string>;
    };
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
