export type * from './shop.generated.ts';
export type { KubeObject, OwnerReference, RenderShop, ShopManifests } from './manifests.ts';
export { GENERATED_KEYS, generatedKeysSecretName } from './manifests.ts';
export { REWRAP_COMMAND } from './components.ts';
export { manifestList, renderShop } from './render-shop.ts';
export { ShopNameError } from './names.ts';
