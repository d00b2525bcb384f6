import { checkShopName } from './names.ts';
import type { Shop, ShopSpec } from './shop.generated.ts';

/** What every construct needs to know about the Shop it renders. */
export interface ShopContext {
  readonly name: string;
  readonly namespace: string | undefined;
  readonly spec: ShopSpec;
  /** The Shop has ALLOW_DOWNGRADE_ANNOTATION. */
  readonly allowDowngrade: boolean;
}

/** Set on a Shop (any value) to run its image's migrate command even when a newer version migrated the schema. */
export const ALLOW_DOWNGRADE_ANNOTATION = 'shop.dev/allow-downgrade';

export function shopContext(shop: Shop): ShopContext {
  return {
    name: checkShopName(shop.metadata?.name),
    namespace: shop.metadata?.namespace,
    spec: shop.spec,
    allowDowngrade: shop.metadata?.annotations?.[ALLOW_DOWNGRADE_ANNOTATION] !== undefined,
  };
}

/** The CRD's defaults, for a Shop read from a file rather than from the API server (which fills them in). */
export const SPEC_DEFAULTS = {
  pullPolicy: 'IfNotPresent',
  apiReplicas: 2,
  workerReplicas: 1,
} as const;

export function imageOf(spec: ShopSpec): { image: string; imagePullPolicy: string } {
  const { repository, tag, digest } = spec.image;
  return {
    image: digest === undefined ? `${repository}:${tag}` : `${repository}@${digest}`,
    imagePullPolicy: spec.image.pullPolicy ?? SPEC_DEFAULTS.pullPolicy,
  };
}
