import type { k8s } from 'cdk8s-plus-33';
import type { HttpPort } from './components.ts';
import { GENERATED_KEYS, generatedKeysSecretName } from './manifests.ts';
import type { ShopContext } from './shop-context.ts';
import type { ShopSpec } from './shop.generated.ts';

type SecretField = keyof ShopSpec['secrets'];

/** Every secret reference of the spec and the variable it fills; a new field in the schema fails to compile here. */
const SECRET_VARIABLES: Record<SecretField, string> = {
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
 * `envFrom`: NODE_ENV, the port the probes use, spec.fileStorage and every secret.
 */
export function containerEnvironment(shop: ShopContext, configMapName: string, http?: HttpPort): ContainerEnvironment {
  const env: k8s.EnvVar[] = [{ name: 'NODE_ENV', value: 'production' }];
  if (http) env.push({ name: http.variable, value: String(http.port) });
  env.push(...fileStorageVariables(shop.spec.fileStorage), ...secretVariables(shop));
  return { env, envFrom: [{ configMapRef: { name: configMapName } }] };
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

function secretVariables(shop: ShopContext): k8s.EnvVar[] {
  const generatedSecret = generatedKeysSecretName(shop.name);
  const variables: k8s.EnvVar[] = [];
  for (const [field, variable] of Object.entries(SECRET_VARIABLES) as Array<[SecretField, string]>) {
    const reference = shop.spec.secrets[field];
    const generatedKey = GENERATED_WHEN_UNSET[field];
    if (reference) variables.push(fromSecret(variable, reference.name, reference.key));
    else if (generatedKey) variables.push(fromSecret(variable, generatedSecret, generatedKey));
  }
  // Rotation of the generated keys keeps the previous signing key and the retired master keys in use; before the first rotation there are none.
  if (!shop.spec.secrets.secretKey) {
    variables.push(fromSecret('SECRET_KEY_PREVIOUS', generatedSecret, GENERATED_KEYS.secretKeyPrevious, true));
  }
  if (!shop.spec.secrets.secretsMasterKey) {
    variables.push(fromSecret('SECRETS_MASTER_KEY_ROTATING_FROM', generatedSecret, GENERATED_KEYS.secretsMasterKeyRotatingFrom, true));
  }
  return variables;
}

function fromSecret(variable: string, name: string, key: string, optional?: boolean): k8s.EnvVar {
  return { name: variable, valueFrom: { secretKeyRef: { name, key, optional } } };
}
