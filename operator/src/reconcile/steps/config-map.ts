import { apply } from '../../kube/apply.ts';
import type { ReconcileStep } from '../pass.ts';

/** spec.config as the environment of every container. */
export const configMap: ReconcileStep = {
  name: 'config map',
  conditions: [],
  async run({ manifests, clients }) {
    await apply(clients.objects, manifests.configMap);
    return undefined;
  },
};
