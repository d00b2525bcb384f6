import { apply, readCurrent } from '../../kube/apply.ts';
import { appliedVersion } from '../../kube/ownership.ts';
import type { Pass, ReconcileStep } from '../pass.ts';
import { rollOut } from './roll-out.ts';

/** The api Deployment, its Service, its PodDisruptionBudget and its autoscaler if any, once the migrations of the version are applied. */
export const api: ReconcileStep = {
  name: 'api',
  conditions: ['ApiAvailable'],
  async run(pass) {
    const { deployment, service, disruptionBudget, autoscaler } = pass.manifests.api;
    const rollout = await rollOut(pass, 'api', deployment, 'ApiAvailable');
    await apply(pass.clients.objects, service);
    await apply(pass.clients.objects, disruptionBudget);
    if (autoscaler) await apply(pass.clients.objects, autoscaler);
    if (rollout.done) return undefined;
    const older = await olderBackgroundVersions(pass);
    const held =
      older.length === 0 ? '' : `; ${older.join(' and ')} keep running until the api of ${pass.shop.spec.image.tag} is available`;
    if (rollout.failure) return { phase: 'Degraded', reason: rollout.failure.reason, message: `${rollout.failure.message}${held}` };
    return { phase: older.length === 0 ? 'Deploying' : 'Upgrading', reason: 'ApiRollingOut', message: `${rollout.message}${held}` };
  },
};

/** The worker and consumer still applied for another version, e.g. ["worker 1.4.0", "consumer 1.4.0"]. */
async function olderBackgroundVersions(pass: Pass): Promise<string[]> {
  const tag = pass.shop.spec.image.tag;
  const older: string[] = [];
  for (const [component, { deployment }] of [
    ['worker', pass.manifests.worker],
    ['consumer', pass.manifests.consumer],
  ] as const) {
    const version = appliedVersion(await readCurrent(pass.clients.objects, deployment));
    if (version !== undefined && version !== tag) older.push(`${component} ${version}`);
  }
  return older;
}
