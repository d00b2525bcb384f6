import { randomBytes } from 'node:crypto';
import type { KubernetesObject } from '@kubernetes/client-node';
import { GENERATED_KEYS, generatedKeysSecretName, type KubeObject } from '@shop/cdk8s';
import { readCurrent } from '../../kube/apply.ts';
import { isConflict } from '../../kube/errors.ts';
import { managedFor } from '../../kube/ownership.ts';
import type { ReconcileStep } from '../pass.ts';

/**
 * SECRET_KEY and SECRETS_MASTER_KEY for a Shop that does not reference its own: generated once into
 * `<shop>-generated-keys`. Created, never applied: an existing Secret is never rewritten, because new
 * keys would invalidate every session and make every stored secret unreadable. Not owned by the
 * Shop either: deleting the Shop (or `helm uninstall`) must not take the master key, and with it
 * every stored secret, to the garbage collector. A Shop created again under the same name reuses it.
 */
export const generatedKeys: ReconcileStep = {
  name: 'generated keys',
  conditions: [],
  async run({ shop, clients }) {
    const { secretKey, secretsMasterKey } = shop.spec.secrets;
    if (secretKey && secretsMasterKey) return undefined;
    const secret: KubeObject = managedFor(shop, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: generatedKeysSecretName(shop.metadata.name) },
      type: 'Opaque',
      stringData: {
        [GENERATED_KEYS.secretKey]: randomBytes(48).toString('base64url'),
        // The platform requires exactly 32 bytes, base64.
        [GENERATED_KEYS.secretsMasterKey]: randomBytes(32).toString('base64'),
      },
    });
    if (await readCurrent(clients.objects, secret)) return undefined;
    try {
      await clients.objects.create(secret as KubernetesObject);
    } catch (error) {
      if (!isConflict(error)) throw error; // created meanwhile: that one stays
    }
    return undefined;
  },
};
