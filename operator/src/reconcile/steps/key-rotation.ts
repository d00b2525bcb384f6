import type { V1Job, V1Secret } from '@kubernetes/client-node';
import type { KubeObject } from '@shop/cdk8s';
import { masterKeyIdOf } from '@shop/runtime';
import { keySetOf, secretWith, type KeySet } from '../../keys/key-set.ts';
import { olderKeyPods } from '../../keys/older-key-pods.ts';
import { keysDue, nextRotationAction, type RotationFacts } from '../../keys/rotation-phases.ts';
import { rotationPolicy, rotationRequest } from '../../keys/rotation-policy.ts';
import { blockedReport, keyRotationStatus, keysCurrentReport } from '../../keys/rotation-report.ts';
import { rewrapCount } from '../../keys/rewrap-count.ts';
import { removalCheckJobName, rewrapJob, rewrapJobName } from '../../keys/rewrap-job.ts';
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
    if (pass.shop.spec.secrets.secretsMasterKeyRotatingFrom && !rotatingGenerated)
      pass.report('KeysCurrent', await suppliedKeysReport(pass));
    return undefined;
  },
};

/**
 * The Secret is written with its resourceVersion, so two writers never both move a phase on. Secrets
 * and pods are not watched: after a write the Shop is looked at again at once, and while waiting it
 * is requeued at the next due time.
 */
async function rotateGeneratedKeys(pass: Pass, { keys, secret }: GeneratedKeys): Promise<void> {
  const { shop } = pass;
  const policy = rotationPolicy(shop);
  const job = rewrapJob(pass.manifests, rewrapJobName(shop.metadata.name, keys.revision));
  pass.provisioned.push(job);
  const stored = keys.phase === 'Rewrapping' ? await readCurrent<V1Job>(pass.clients.objects, job) : undefined;
  let rewrap: JobOutcome | undefined = stored && jobOutcome(stored);
  const count = stored && rewrap?.state !== 'running' ? await rewrapCount(pass.clients, stored) : undefined;
  const removal = await removalFacts(pass, keys);

  const action = nextRotationAction(keys, policy, {
    now: pass.now,
    requested: rotationRequest(shop),
    rewrap,
    rewrapCount: count,
    olderPods: removal.olderPods,
    removalCheck: removal.check,
    fresh: { masterKey: newMasterKey(), signingKey: newSigningKey() },
  });
  if (action.kind === 'rewrap') {
    // Created once per revision; a Job's template cannot change, so an existing one is only read.
    rewrap = jobOutcome(await apply<V1Job>(pass.clients.objects, job));
  } else if (action.kind === 'check' && removal.checkJob) {
    await apply<V1Job>(pass.clients.objects, removal.checkJob);
  } else if (action.kind === 'write') {
    const written = await pass.clients.core.replaceNamespacedSecret({
      name: secret.metadata?.name ?? '',
      namespace: shop.metadata.namespace,
      body: secretWith(secret, action.keys) as V1Secret,
    });
    pass.generatedKeys = { secret: written, keys: keySetOf(written) };
    pass.requeueAfter(0);
  } else if (action.kind === 'wait' && action.until) {
    pass.requeueAfter(Math.min(Math.max(action.until.getTime() - pass.now.getTime(), 0), MAX_REQUEUE_MS));
  }

  const latest = pass.generatedKeys?.keys ?? keys;
  pass.keyRotation = keyRotationStatus(latest, policy, count ?? removal.check?.count);
  const blocked = action.kind === 'wait' ? action.blocked : undefined;
  pass.report(
    'KeysCurrent',
    blocked ? blockedReport(blocked, removal.checkJob?.metadata.name) : keysCurrentReport(latest, policy, shop.metadata.name, rewrap),
  );
}

interface RemovalFacts {
  readonly olderPods: readonly string[];
  /** The removal check Job of the master keys due, as it would be created. */
  readonly checkJob: KubeObject | undefined;
  readonly check: RotationFacts['removalCheck'];
}

/** What a removal waits on, looked up only once a key's retention has ended. */
async function removalFacts(pass: Pass, keys: KeySet): Promise<RemovalFacts> {
  const due = keysDue(keys, pass.now);
  if (due.masterKeys.length === 0 && !due.signingKey) return { olderPods: [], checkJob: undefined, check: undefined };
  const { api, worker, consumer } = pass.manifests;
  const olderPods = await olderKeyPods(
    pass.clients,
    pass.shop.metadata.namespace,
    [api.deployment, worker.deployment, consumer.deployment],
    keys.revision,
  );
  if (due.masterKeys.length === 0) return { olderPods, checkJob: undefined, check: undefined };
  const idOf = (key: string) => masterKeyIdOf(Buffer.from(key, 'base64'));
  const name = removalCheckJobName(
    pass.shop.metadata.name,
    idOf(keys.masterKey),
    due.masterKeys.map((retiring) => idOf(retiring.key)),
  );
  const checkJob = rewrapJob(pass.manifests, name);
  const stored = await readCurrent<V1Job>(pass.clients.objects, checkJob);
  if (!stored) return { olderPods, checkJob, check: undefined };
  const outcome = jobOutcome(stored);
  const count = outcome.state === 'running' ? undefined : await rewrapCount(pass.clients, stored);
  return { olderPods, checkJob, check: { outcome, count } };
}
