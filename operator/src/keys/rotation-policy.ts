import type { StoredShop } from '../shop-resource.ts';
import { durationMs } from './durations.ts';
import type { RotationPolicy } from './rotation-phases.ts';

/** The Shop's annotation that requests a rotation now: each new value starts one. */
export const ROTATE_KEYS_ANNOTATION = 'shop.dev/rotate-keys';

/** spec.keyRotation and which keys are generated, with the CRD's defaults for a Shop stored without them. */
export function rotationPolicy(shop: StoredShop): RotationPolicy {
  const { keyRotation, secrets } = shop.spec;
  return {
    enabled: keyRotation?.enabled === true,
    intervalMs: durationMs(keyRotation?.interval ?? '720h'),
    retentionMs: durationMs(keyRotation?.retention ?? '336h'),
    rotatesMasterKey: secrets.secretsMasterKey === undefined,
    rotatesSigningKey: secrets.secretKey === undefined,
  };
}

export const rotationRequest = (shop: StoredShop): string | undefined => shop.metadata.annotations?.[ROTATE_KEYS_ANNOTATION];
