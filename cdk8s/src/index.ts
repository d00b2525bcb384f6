export type * from './shop.generated.ts';
export type { KubeObject, RenderShop, ShopManifests } from './manifests.ts';
export { generatedKeysSecretName } from './manifests.ts';
