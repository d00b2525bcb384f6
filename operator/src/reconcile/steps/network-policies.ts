import { apply } from '../../kube/apply.ts';
import type { ReconcileStep } from '../pass.ts';

/**
 * spec.networkPolicy: the NetworkPolicies, before any pod of the version starts (the migration Job's
 * too). Turned off, they are no longer rendered and the prune step deletes them.
 */
export const networkPolicies: ReconcileStep = {
  name: 'network policies',
  conditions: [],
  async run({ manifests, clients }) {
    for (const policy of Object.values(manifests.networkPolicies ?? {})) await apply(clients.objects, policy);
    return undefined;
  },
};
