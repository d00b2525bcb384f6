import type { V1Secret } from '@kubernetes/client-node';
import { readCurrent } from '../../kube/apply.ts';
import type { ReconcileStep } from '../pass.ts';

/** Secrets are not watched (that would cache every Secret in scope), so a missing one is looked for again after this. */
export const SECRET_RECHECK_MS = 15_000;

/**
 * Every Secret key named in spec.secrets exists before anything that reads it starts: a pod missing one
 * would wait forever in CreateContainerConfigError, which the Shop's status would not show.
 */
export const referencedSecrets: ReconcileStep = {
  name: 'referenced secrets',
  conditions: [],
  async run({ shop, clients, referencedSecrets: secrets }) {
    const missing: string[] = [];
    for (const [field, reference] of Object.entries(shop.spec.secrets)) {
      if (!reference) continue;
      if (!secrets.has(reference.name)) {
        const header = { apiVersion: 'v1', kind: 'Secret', metadata: { name: reference.name, namespace: shop.metadata.namespace } };
        secrets.set(reference.name, await readCurrent<V1Secret>(clients.objects, header));
      }
      const secret = secrets.get(reference.name);
      if (!secret) missing.push(`Secret ${reference.name} (spec.secrets.${field}) does not exist`);
      else if (secret.data?.[reference.key] === undefined) missing.push(`Secret ${reference.name} has no key ${reference.key} (spec.secrets.${field})`);
    }
    if (missing.length === 0) return undefined;
    return { phase: 'Pending', reason: 'SecretsMissing', message: missing.sort().join('; '), requeueAfterMs: SECRET_RECHECK_MS };
  },
};
