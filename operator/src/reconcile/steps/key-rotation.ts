import type { V1Job, V1Secret } from '@kubernetes/client-node';
import { keySetOf, secretWith } from '../../keys/key-set.ts';
import { nextRotationAction } from '../../keys/rotation-phases.ts';
import { rotationPolicy, rotationRequest } from '../../keys/rotation-policy.ts';
import { keyRotationStatus, keysCurrentReport } from '../../keys/rotation-report.ts';
import { rewrapCount } from '../../keys/rewrap-count.ts';
import { rewrapJob, rewrapJobName } from '../../keys/rewrap-job.ts';
import { suppliedKeysReport } from '../../keys/supplied-keys.ts';
import { apply, readCurrent } from '../../kube/apply.ts';
import { jobOutcome, type JobOutcome } from '../../kube/workload-state.ts';
import type { GeneratedKeys, Pass, ReconcileStep } from '../pass.ts';
import { newMasterKey, newSigningKey } from './generated-keys.ts';

/**
 * The longest requeue asked for. A timer of more than 2³¹-1 ms (24.8 days, less than the default
 * interval) fires at once; the resync looks at every Shop far more often anyway.
 */
const MAX_REQUEUE_MS = 24 * 3_600_000;

/**
 * Rotation of the generated keys (docs/secrets.md), one phase per pass; for a supplied master key
 * with earlier keys, the rewrap Job that says whether rows are left under them. It comes last: a
 * pass reaches it only when nothing is migrating or upgrading and the api, the worker and the
 * consumer run the Secret's current keys revision, which is what lets each phase move on.
 */
export const keyRotation: ReconcileStep = {
  name: 'key rotation',
  conditions: ['KeysCurrent'],
  async run(pass) {
    if (pass.generatedKeys) await rotateGeneratedKeys(pass, pass.generatedKeys);
    const rotatingGenerated = pass.generatedKeys !== undefined && pass.generatedKeys.keys.phase !== 'Settled';
    if (pass.shop.spec.secrets.secretsMasterKeyRotatingFrom && !rotatingGenerated) pass.report('KeysCurrent', await suppliedKeysReport(pass));
    return undefined;
  },
};

/**
 * The Secret is written with its resourceVersion, so two writers never both move a phase on. Secrets
 * are not watched: after a write the Shop is looked at again at once, and while waiting it is
 * requeued at the next due time.
 */
async function rotateGeneratedKeys(pass: Pass, { keys, secret }: GeneratedKeys): Promise<void> {
  const { shop } = pass;
  const policy = rotationPolicy(shop);
  const job = rewrapJob(pass.manifests.migrationJob, rewrapJobName(shop.metadata.name, keys.revision));
  pass.provisioned.push(job);
  const stored = keys.phase === 'Rewrapping' ? await readCurrent<V1Job>(pass.clients.objects, job) : undefined;
  let rewrap: JobOutcome | undefined = stored && jobOutcome(stored);
  const count = stored && rewrap?.state !== 'running' ? await rewrapCount(pass.clients, stored, shop.status?.keyRotation) : undefined;

  const action = nextRotationAction(keys, policy, {
    now: pass.now,
    requested: rotationRequest(shop),
    rewrap,
    rewrapCount: count,
    fresh: { masterKey: newMasterKey(), signingKey: newSigningKey() },
  });
  if (action.kind === 'rewrap') {
    // Created once per revision; a Job's template cannot change, so an existing one is only read.
    rewrap = jobOutcome(await apply<V1Job>(pass.clients.objects, job));
  } else if (action.kind === 'write') {
    const written = await pass.clients.core.replaceNamespacedSecret({
      name: secret.metadata?.name ?? '',
      namespace: shop.metadata.namespace,
      body: secretWith(secret, action.keys) as V1Secret,
    });
    pass.generatedKeys = { secret: written, keys: keySetOf(written) };
    pass.requeueAfter(0);
  } else if (action.until) {
    pass.requeueAfter(Math.min(Math.max(action.until.getTime() - pass.now.getTime(), 0), MAX_REQUEUE_MS));
  }

  const latest = pass.generatedKeys?.keys ?? keys;
  pass.keyRotation = keyRotationStatus(latest, policy, count);
  pass.report('KeysCurrent', keysCurrentReport(latest, policy, shop.metadata.name, rewrap));
}
