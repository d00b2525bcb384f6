import type { V1Secret } from '@kubernetes/client-node';
import { readCurrent } from '../../kube/apply.ts';
import type { Pass, ReconcileStep } from '../pass.ts';

/**
 * Every Secret key named in spec.secrets exists before anything that reads it starts: a pod missing one
 * would wait forever in CreateContainerConfigError, which the Shop's status would not show. Secrets are
 * watched (watches.ts), so the Secret's creation brings the next pass.
 */
export const referencedSecrets: ReconcileStep = {
  name: 'referenced secrets',
  conditions: [],
  async run(pass) {
    const missing: string[] = [];
    for (const [field, reference] of Object.entries(pass.shop.spec.secrets)) {
      if (!reference) continue;
      const secret = await referencedSecret(pass, reference.name);
      if (!secret) missing.push(`Secret ${reference.name} (spec.secrets.${field}) does not exist`);
      else if (secret.data?.[reference.key] === undefined)
        missing.push(`Secret ${reference.name} has no key ${reference.key} (spec.secrets.${field})`);
    }
    if (missing.length === 0) return undefined;
    return { phase: 'Pending', reason: 'SecretsMissing', message: missing.sort().join('; ') };
  },
};

/** A Secret in the Shop's namespace, read once per pass (undefined: it does not exist). */
export async function referencedSecret(pass: Pass, name: string): Promise<V1Secret | undefined> {
  if (!pass.referencedSecrets.has(name)) {
    const header = { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: pass.shop.metadata.namespace } };
    pass.referencedSecrets.set(name, await readCurrent<V1Secret>(pass.clients.objects, header));
  }
  return pass.referencedSecrets.get(name);
}
