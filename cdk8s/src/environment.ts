import type { k8s } from 'cdk8s-plus-33';
import type { HttpPort } from './components.ts';
import type { Component } from './labels.ts';
import { GENERATED_KEYS, generatedKeysSecretName } from './manifests.ts';
import type { ShopContext } from './shop-context.ts';
import type { ShopSpec } from './shop.generated.ts';

type SecretField = keyof ShopSpec['secrets'];

/** Every secret reference of the spec and the variable it fills; a new field in the schema fails to compile here. */
const SECRET_VARIABLES = {
  databaseUrl: 'DATABASE_URL',
  cacheUrl: 'CACHE_URL',
  brokerAddress: 'BROKER_ADDRESS',
  workflowHost: 'WORKFLOW_HOST',
  secretKey: 'SECRET_KEY',
  secretsMasterKey: 'SECRETS_MASTER_KEY',
  secretsMasterKeyRotatingFrom: 'SECRETS_MASTER_KEY_ROTATING_FROM',
  adminSearchApiKey: 'ADMIN_SEARCH_API_KEY',
  storefrontSearchApiKey: 'STOREFRONT_SEARCH_API_KEY',
  storefrontSearchOnlyKey: 'STOREFRONT_SEARCH_ONLY_KEY',
  s3AccessKey: 'S3_ACCESS_KEY',
  s3SecretKey: 'S3_SECRET_KEY',
} as const satisfies Record<SecretField, string>;

/** Every secret variable a container may get: those of spec.secrets and the previous signing key of the generated Secret. */
export type SecretVariable = (typeof SECRET_VARIABLES)[SecretField] | 'SECRET_KEY_PREVIOUS';

/** The programs of the platform image the operator runs: the three services, the migration Job, and the seed and key rewrap Jobs it derives from it. */
export type Workload = Component | JobWorkload;
export type JobWorkload = 'seed' | 'key-rewrap';

/**
 * Why a workload gets a secret variable: its program `uses` it; or it never does, but the platform's
 * configuration (`loadConfig` of services/platform/src/config/config.ts, which every program but the
 * migrate command loads whole) refuses to start without it in production: `validated`. `false`: not given.
 */
export type SecretUse = 'uses' | 'validated' | false;
type SecretTable = Readonly<Record<SecretVariable, SecretUse>>;

/**
 * The secret variables of each workload, one table each: a variable missing from a table fails to
 * compile. What the programs read, each of api, worker, consumer, seed and key-rewrap through
 * `loadConfig` and `openPlatform` (the database, cache and broker, and the master keys, which also
 * check that every stored secret can be opened); cdk8s/test/environment.test.ts loads each one's
 * configuration with only the variables rendered for it.
 */
export const WORKLOAD_SECRETS: Readonly<Record<Workload, SecretTable>> = {
  // Everything: it signs tokens and upload URLs, starts workflows, searches, hands out scoped search keys, stores files.
  api: {
    DATABASE_URL: 'uses',
    CACHE_URL: 'uses',
    BROKER_ADDRESS: 'uses',
    WORKFLOW_HOST: 'uses',
    SECRET_KEY: 'uses',
    SECRET_KEY_PREVIOUS: 'uses',
    SECRETS_MASTER_KEY: 'uses',
    SECRETS_MASTER_KEY_ROTATING_FROM: 'uses',
    ADMIN_SEARCH_API_KEY: 'uses',
    STOREFRONT_SEARCH_API_KEY: 'uses',
    STOREFRONT_SEARCH_ONLY_KEY: 'uses',
    S3_ACCESS_KEY: 'uses',
    S3_SECRET_KEY: 'uses',
  },
  // Workflows and their activities (the payment gateway's stored credentials need the master keys); no tokens, search or files.
  worker: {
    DATABASE_URL: 'uses',
    CACHE_URL: 'uses',
    BROKER_ADDRESS: 'uses',
    WORKFLOW_HOST: 'uses',
    SECRET_KEY: 'validated',
    SECRET_KEY_PREVIOUS: false,
    SECRETS_MASTER_KEY: 'uses',
    SECRETS_MASTER_KEY_ROTATING_FROM: 'uses',
    ADMIN_SEARCH_API_KEY: false,
    STOREFRONT_SEARCH_API_KEY: false,
    STOREFRONT_SEARCH_ONLY_KEY: false,
    S3_ACCESS_KEY: false,
    S3_SECRET_KEY: false,
  },
  // The topic subscriptions, among them the search indexing (the admin and storefront indexes' API keys); no workflows, no files.
  consumer: {
    DATABASE_URL: 'uses',
    CACHE_URL: 'uses',
    BROKER_ADDRESS: 'uses',
    WORKFLOW_HOST: false,
    SECRET_KEY: 'validated',
    SECRET_KEY_PREVIOUS: false,
    SECRETS_MASTER_KEY: 'uses',
    SECRETS_MASTER_KEY_ROTATING_FROM: 'uses',
    ADMIN_SEARCH_API_KEY: 'uses',
    STOREFRONT_SEARCH_API_KEY: 'uses',
    STOREFRONT_SEARCH_ONLY_KEY: false,
    S3_ACCESS_KEY: false,
    S3_SECRET_KEY: false,
  },
  // The migrate command reads DATABASE_URL alone (no loadConfig); the extensions' migrations are SQL on the same connection.
  migrations: {
    DATABASE_URL: 'uses',
    CACHE_URL: false,
    BROKER_ADDRESS: false,
    WORKFLOW_HOST: false,
    SECRET_KEY: false,
    SECRET_KEY_PREVIOUS: false,
    SECRETS_MASTER_KEY: false,
    SECRETS_MASTER_KEY_ROTATING_FROM: false,
    ADMIN_SEARCH_API_KEY: false,
    STOREFRONT_SEARCH_API_KEY: false,
    STOREFRONT_SEARCH_ONLY_KEY: false,
    S3_ACCESS_KEY: false,
    S3_SECRET_KEY: false,
  },
  // The first admin through the outbox, on the whole platform (openPlatform).
  seed: {
    DATABASE_URL: 'uses',
    CACHE_URL: 'uses',
    BROKER_ADDRESS: 'uses',
    WORKFLOW_HOST: false,
    SECRET_KEY: 'validated',
    SECRET_KEY_PREVIOUS: false,
    SECRETS_MASTER_KEY: 'uses',
    SECRETS_MASTER_KEY_ROTATING_FROM: 'uses',
    ADMIN_SEARCH_API_KEY: false,
    STOREFRONT_SEARCH_API_KEY: false,
    STOREFRONT_SEARCH_ONLY_KEY: false,
    S3_ACCESS_KEY: false,
    S3_SECRET_KEY: false,
  },
  // Moves the stored secrets to SECRETS_MASTER_KEY: the database and the master keys only.
  'key-rewrap': {
    DATABASE_URL: 'uses',
    CACHE_URL: 'validated',
    BROKER_ADDRESS: 'validated',
    WORKFLOW_HOST: false,
    SECRET_KEY: 'validated',
    SECRET_KEY_PREVIOUS: false,
    SECRETS_MASTER_KEY: 'uses',
    SECRETS_MASTER_KEY_ROTATING_FROM: 'uses',
    ADMIN_SEARCH_API_KEY: false,
    STOREFRONT_SEARCH_API_KEY: false,
    STOREFRONT_SEARCH_ONLY_KEY: false,
    S3_ACCESS_KEY: false,
    S3_SECRET_KEY: false,
  },
};

/** Keys the operator generates when the spec does not reference them. */
const GENERATED_WHEN_UNSET: Partial<Record<SecretField, string>> = {
  secretKey: GENERATED_KEYS.secretKey,
  secretsMasterKey: GENERATED_KEYS.secretsMasterKey,
};

export interface ContainerEnvironment {
  readonly env: k8s.EnvVar[];
  readonly envFrom: k8s.EnvFromSource[];
}

/**
 * spec.config through the ConfigMap, and explicit variables, which Kubernetes lets win over
 * `envFrom`: NODE_ENV, the port the probes use, spec.fileStorage and the secrets of the workload's table.
 */
export function containerEnvironment(shop: ShopContext, workload: Workload, configMapName: string, http?: HttpPort): ContainerEnvironment {
  return { env: explicitVariables(shop, workload, http), envFrom: [{ configMapRef: { name: configMapName } }] };
}

/** The explicit variables of a workload's container (its `env`; `envFrom` is the ConfigMap's for all). */
export function explicitVariables(shop: ShopContext, workload: Workload, http?: HttpPort): k8s.EnvVar[] {
  const env: k8s.EnvVar[] = [{ name: 'NODE_ENV', value: 'production' }];
  if (http) env.push({ name: http.variable, value: String(http.port) });
  env.push(...fileStorageVariables(shop.spec.fileStorage), ...secretVariables(shop, WORKLOAD_SECRETS[workload]));
  return env;
}

/** spec.fileStorage's plain variables, those set; its keys are secrets.s3AccessKey and secrets.s3SecretKey. */
function fileStorageVariables(fileStorage: ShopSpec['fileStorage']): k8s.EnvVar[] {
  const values: Record<string, string | undefined> = {
    FILE_STORAGE_PROVIDER: fileStorage?.provider,
    S3_ENDPOINT: fileStorage?.s3?.endpoint,
    S3_BUCKET: fileStorage?.s3?.bucket,
    S3_PUBLIC_URL: fileStorage?.s3?.publicUrl,
  };
  return Object.entries(values).flatMap(([name, value]) => (value === undefined ? [] : [{ name, value }]));
}

function secretVariables(shop: ShopContext, table: SecretTable): k8s.EnvVar[] {
  const generatedSecret = generatedKeysSecretName(shop.name);
  const variables: k8s.EnvVar[] = [];
  for (const [field, variable] of Object.entries(SECRET_VARIABLES) as Array<[SecretField, SecretVariable]>) {
    if (!table[variable]) continue;
    const reference = shop.spec.secrets[field];
    const generatedKey = GENERATED_WHEN_UNSET[field];
    if (reference) variables.push(fromSecret(variable, reference.name, reference.key));
    else if (generatedKey) variables.push(fromSecret(variable, generatedSecret, generatedKey));
  }
  // Rotation of the generated keys keeps the previous signing key and the retired master keys in use; before the first rotation there are none.
  if (!shop.spec.secrets.secretKey && table.SECRET_KEY_PREVIOUS) {
    variables.push(fromSecret('SECRET_KEY_PREVIOUS', generatedSecret, GENERATED_KEYS.secretKeyPrevious, true));
  }
  if (!shop.spec.secrets.secretsMasterKey && table.SECRETS_MASTER_KEY_ROTATING_FROM) {
    variables.push(fromSecret('SECRETS_MASTER_KEY_ROTATING_FROM', generatedSecret, GENERATED_KEYS.secretsMasterKeyRotatingFrom, true));
  }
  return variables;
}

function fromSecret(variable: string, name: string, key: string, optional?: boolean): k8s.EnvVar {
  return { name: variable, valueFrom: { secretKeyRef: { name, key, optional } } };
}
