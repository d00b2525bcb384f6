import { randomBytes } from 'node:crypto';
import type { KubernetesObject, KubernetesObjectApi, V1Secret } from '@kubernetes/client-node';
import { GENERATED_KEYS, generatedKeysSecretName, type KubeObject } from '@shop/cdk8s';
import { keySetOf } from '../../keys/key-set.ts';
import { rotationPolicy } from '../../keys/rotation-policy.ts';
import { keyRotationStatus, keysCurrentReport } from '../../keys/rotation-report.ts';
import { readCurrent } from '../../kube/apply.ts';
import { isConflict } from '../../kube/errors.ts';
import { managedFor } from '../../kube/ownership.ts';
import type { StoredShop } from '../../shop-resource.ts';
import type { ReconcileStep } from '../pass.ts';

/** SECRET_KEY: 48 random bytes, base64url. */
export const newSigningKey = (): string => randomBytes(48).toString('base64url');
/** SECRETS_MASTER_KEY: the platform requires exactly 32 bytes, base64. */
export const newMasterKey = (): string => randomBytes(32).toString('base64');

/** The generated keys Secret's kind, namespace and name. */
const generatedKeysSecret = (shop: StoredShop): KubeObject =>
  managedFor(shop, { apiVersion: 'v1', kind: 'Secret', metadata: { name: generatedKeysSecretName(shop.metadata.name) } });

/**
 * SECRET_KEY and SECRETS_MASTER_KEY for a Shop that does not reference its own: generated once into
 * `<shop>-generated-keys`. Created, never applied: only the key rotation step rewrites it, phase by
 * phase, because keys changed at once would invalidate every session and make every stored secret
 * unreadable. Not owned by the Shop either: deleting the Shop (or `helm uninstall`) must not take the
 * master key, and with it every stored secret, to the garbage collector. A Shop created again under
 * the same name reuses it.
 *
 * It also reads where the keys' rotation stands, for the pods' rollout (the keys revision) and for
 * the status, which a pass halted before the rotation step still reports.
 */
export const generatedKeys: ReconcileStep = {
  name: 'generated keys',
  conditions: [],
  async run(pass) {
    const { shop, clients } = pass;
    const { secretKey, secretsMasterKey } = shop.spec.secrets;
    if (secretKey && secretsMasterKey) {
      pass.generatedKeys = undefined;
      pass.keyRotation = undefined;
      pass.report('KeysCurrent', {
        status: 'Unknown',
        reason: 'KeysSupplied',
        message: 'SECRET_KEY and SECRETS_MASTER_KEY come from spec.secrets: the operator does not rotate them',
      });
      return undefined;
    }
    const secret = (await readCurrent<V1Secret>(clients.objects, generatedKeysSecret(shop))) ?? (await create(shop, clients.objects));
    const keys = keySetOf(secret);
    const policy = rotationPolicy(shop);
    pass.generatedKeys = { secret, keys };
    pass.keyRotation = keyRotationStatus(keys, policy);
    pass.report('KeysCurrent', keysCurrentReport(keys, policy, shop.metadata.name));
    return undefined;
  },
};

async function create(shop: StoredShop, objects: KubernetesObjectApi): Promise<V1Secret> {
  const header = generatedKeysSecret(shop);
  const secret = {
    ...header,
    type: 'Opaque',
    stringData: { [GENERATED_KEYS.secretKey]: newSigningKey(), [GENERATED_KEYS.secretsMasterKey]: newMasterKey() },
  };
  try {
    return await objects.create(secret as KubernetesObject);
  } catch (error) {
    if (!isConflict(error)) throw error;
    // Created meanwhile: that one stays.
    const current = await readCurrent<V1Secret>(objects, header);
    if (!current) throw error;
    return current;
  }
}
