export type * from './shop.generated.ts';
export type { JobEnvVar, KubeObject, OwnerReference, RenderShop, ShopManifests } from './manifests.ts';
export { WORKLOAD_SECRETS, type SecretUse, type SecretVariable, type Workload } from './environment.ts';
export { GENERATED_KEYS, generatedKeysSecretName } from './manifests.ts';
export { ALLOW_DOWNGRADE_FLAG, REWRAP_COMMAND, SEED_COMMAND } from './components.ts';
export { ALLOW_DOWNGRADE_ANNOTATION } from './shop-context.ts';
export { manifestList, renderShop } from './render-shop.ts';
export { ShopNameError } from './names.ts';
export { sha256Hex } from './hash.ts';
