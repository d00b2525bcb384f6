import type { V1Job } from '@kubernetes/client-node';
import { masterKeyIdOf } from '@shop/runtime';
import { apply, readCurrent } from '../kube/apply.ts';
import { jobOutcome } from '../kube/workload-state.ts';
import type { ConditionReport } from '../reconcile/conditions.ts';
import type { Pass } from '../reconcile/pass.ts';
import { referencedSecret } from '../reconcile/steps/referenced-secrets.ts';
import { rewrapCount } from './rewrap-count.ts';
import { rewrapJob, suppliedRewrapJobName } from './rewrap-job.ts';
import { rowsCounted } from './rotation-report.ts';

type SecretReference = { readonly name: string; readonly key: string };

/**
 * For a supplied master key with earlier keys (spec.secrets.secretsMasterKeyRotatingFrom): runs the
 * rewrap Job once per set of key ids and reports what its exit says. The Job completes only when no
 * stored secret is under any key but the current one, so a complete Job means the earlier keys hold
 * no rows. Once it ended, the rows per key id its pod counted go to status.keyRotation. Nothing is
 * rotated or removed: the keys are the user's.
 */
export async function suppliedKeysReport(pass: Pass): Promise<ConditionReport> {
  const { secretsMasterKey, secretsMasterKeyRotatingFrom } = pass.shop.spec.secrets;
  if (!secretsMasterKey || !secretsMasterKeyRotatingFrom)
    throw new Error('suppliedKeysReport needs secretsMasterKey and secretsMasterKeyRotatingFrom');
  const idOf = (key: string) => masterKeyIdOf(Buffer.from(key, 'base64'));
  const currentId = idOf(await referencedValue(pass, secretsMasterKey));
  const earlierIds = (await referencedValue(pass, secretsMasterKeyRotatingFrom))
    .split(',')
    .map((key) => key.trim())
    .filter((key) => key !== '')
    .map(idOf);
  const earlier = earlierIds.join(', ') || 'none';

  const job = rewrapJob(pass.manifests, suppliedRewrapJobName(pass.shop.metadata.name, [currentId, ...earlierIds]));
  const name = job.metadata.name;
  // Created once per set of keys; a Job's template cannot change, so an existing one is only read.
  pass.provisioned.push(job);
  const stored = (await readCurrent<V1Job>(pass.clients.objects, job)) ?? (await apply<V1Job>(pass.clients.objects, job));
  const outcome = jobOutcome(stored);
  const count = outcome.state === 'running' ? undefined : await rewrapCount(pass.clients, stored);
  if (count) pass.keyRotation = { ...pass.keyRotation, ...rowsCounted(count) };
  if (outcome.state === 'complete') {
    return {
      status: 'True',
      reason: 'EarlierKeysUnused',
      message: `Job ${name}: every stored secret is under master key ${currentId}; none is under the keys of secretsMasterKeyRotatingFrom (${earlier}), which can be removed`,
    };
  }
  if (outcome.state === 'failed') {
    const message = `Job ${name} failed (${outcome.reason}): ${outcome.message}; rows may still be under ${earlier}, or under keys neither variable holds (its log says); delete the Job to run it again`;
    return { status: 'False', reason: 'RewrapFailed', message };
  }
  return {
    status: 'False',
    reason: 'Rewrapping',
    message: `Job ${name} moves every stored secret from ${earlier} to master key ${currentId}`,
  };
}

/** The referenced Secret key's value, as the referenced-secrets step read it in this pass (and checked that it exists). */
async function referencedValue(pass: Pass, reference: SecretReference): Promise<string> {
  const secret = await referencedSecret(pass, reference.name);
  const value = secret?.data?.[reference.key];
  if (value === undefined) throw new Error(`Secret ${reference.name} has no key ${reference.key}`);
  return Buffer.from(value, 'base64').toString('utf8');
}
