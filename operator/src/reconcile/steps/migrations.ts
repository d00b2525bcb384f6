import { PatchStrategy, setHeaderOptions, type KubernetesObject, type V1Job, type V1Pod } from '@kubernetes/client-node';
import { ALLOW_DOWNGRADE_ANNOTATION, ALLOW_DOWNGRADE_FLAG } from '@shop/cdk8s';
import { parseMigrationSummary, type MigrationSummary } from '@shop/runtime';
import { apply, readCurrent } from '../../kube/apply.ts';
import { isNotFound } from '../../kube/errors.ts';
import { lastTermination } from '../../kube/pod-failures.ts';
import { jobOutcome, jobPodSelector } from '../../kube/workload-state.ts';
import { SHOP_API } from '../../shop-resource.ts';
import type { Halt, Pass, ReconcileStep } from '../pass.ts';
import { jobStartFailure } from '../workload-failures.ts';

/** Set on a Shop (any value) to run its failed migration Job again; the operator removes it. */
export const RETRY_MIGRATION_ANNOTATION = 'shop.dev/retry-migration';

/**
 * The migration Job of spec.image.tag, once per version. Nothing after this step runs until the Job is
 * complete. A failed Job (or one past its activeDeadlineSeconds) stops the Shop in phase Failed until
 * the tag changes, the Job is deleted, or the Shop gets the retry annotation (then it is created again
 * and the migrations run again). A Job whose pod cannot start makes the Shop Degraded meanwhile. A Job
 * that refused to run older code on a schema a newer version migrated stops the Shop as
 * DowngradeRefused; with the allow-downgrade annotation it is replaced by one that runs all the same.
 */
export const migrations: ReconcileStep = {
  name: 'migrations',
  conditions: ['MigrationsApplied'],
  async run(pass) {
    const tag = pass.shop.spec.image.tag;
    const job = pass.manifests.migrationJob;
    const name = job.metadata.name;
    if (pass.shop.metadata.annotations?.[RETRY_MIGRATION_ANNOTATION] !== undefined) await retry(pass);
    else if (pass.shop.metadata.annotations?.[ALLOW_DOWNGRADE_ANNOTATION] !== undefined) await replaceRefusedJob(pass);
    if (pass.migratedVersion === tag) {
      // Not even read: a Job removed after it completed (e.g. by a TTL) must not migrate again.
      pass.report('MigrationsApplied', { status: 'True', reason: 'MigrationsComplete', message: `the migrations of ${tag} are applied` });
      return undefined;
    }
    // A Job's template cannot change, so an existing Job is only read, never applied again.
    const current = (await readCurrent<V1Job>(pass.clients.objects, job)) ?? (await apply<V1Job>(pass.clients.objects, job));
    if (current.metadata?.deletionTimestamp) {
      // Its deletion is watched: the pass that sees it gone creates it again.
      return halted(pass, {
        phase: 'Migrating',
        reason: 'MigrationRetrying',
        message: `Job ${name} is being deleted; it is created again once it is gone`,
      });
    }
    const outcome = jobOutcome(current);
    if (outcome.state === 'complete') {
      pass.migratedVersion = tag;
      pass.migratedDigest = ranDigest(await jobPods(pass, current));
      pass.report('MigrationsApplied', {
        status: 'True',
        reason: 'MigrationsComplete',
        message: `Job ${name} applied the migrations of ${tag}`,
      });
      return undefined;
    }
    if (outcome.state === 'failed') {
      const pods = await jobPods(pass, current);
      const refused = refusedDowngrade(pods);
      if (refused) {
        const message =
          `Job ${name} refused to run the code of ${tag} (version ${refused.imageVersion}) on a database schema migrated by version ${refused.schemaVersion ?? 'unknown'}: ` +
          `deploy a tag at least as new, or set the annotation ${ALLOW_DOWNGRADE_ANNOTATION} on the Shop to run it all the same`;
        return halted(pass, { phase: 'Failed', reason: 'DowngradeRefused', message });
      }
      const lastPod = lastTermination(pods);
      const detail = `${outcome.message}${lastPod ? `; ${lastPod}` : ''}`;
      const retryHint = `set the annotation ${RETRY_MIGRATION_ANNOTATION} on the Shop to run it again`;
      if (outcome.reason === 'DeadlineExceeded') {
        const deadline = current.spec?.activeDeadlineSeconds;
        const message = `Job ${name} did not finish within its activeDeadlineSeconds${deadline === undefined ? '' : ` (${deadline} s)`}: ${detail}; ${retryHint}`;
        return halted(pass, { phase: 'Failed', reason: 'MigrationTimedOut', message });
      }
      return halted(pass, {
        phase: 'Failed',
        reason: 'MigrationFailed',
        message: `Job ${name} failed (${outcome.reason}): ${detail}; ${retryHint}`,
      });
    }
    const failure = await jobStartFailure(pass, current, 'migrations');
    if (failure) return halted(pass, { phase: 'Degraded', ...failure });
    return halted(pass, { phase: 'Migrating', reason: 'MigrationRunning', message: `Job ${name} is applying the migrations of ${tag}` });
  },
};

/** MigrationsApplied says what the halt says. */
function halted(pass: Pass, halt: Halt): Halt {
  pass.report('MigrationsApplied', { status: 'False', reason: halt.reason, message: halt.message });
  return halt;
}

function jobPods(pass: Pass, job: V1Job): Promise<V1Pod[]> {
  return pass.clients.core
    .listNamespacedPod({ namespace: pass.shop.metadata.namespace, labelSelector: jobPodSelector(job) })
    .then((list) => list.items);
}

/** The digest of the image a pod of the Job completed with, from the kubelet's imageID (e.g. `docker-pullable://repo@sha256:…`). */
function ranDigest(pods: readonly V1Pod[]): string | undefined {
  return pods
    .flatMap((pod) => pod.status?.containerStatuses ?? [])
    .filter((container) => container.state?.terminated?.exitCode === 0)
    .map((container) => /sha256:[a-f0-9]{64}$/.exec(container.imageID)?.[0])
    .find((digest) => digest !== undefined);
}

/** The summary of a pod of the Job whose migrate command refused a downgrade, from its termination message. */
function refusedDowngrade(pods: readonly V1Pod[]): MigrationSummary | undefined {
  return pods
    .flatMap((pod) => pod.status?.containerStatuses ?? [])
    .map((container) => parseMigrationSummary(container.state?.terminated?.message ?? ''))
    .find((summary) => summary?.downgradeRefused);
}

/**
 * The allow-downgrade annotation on a Shop whose migration Job refused a downgrade (its template
 * cannot change): the Job is deleted, and the pass that sees it gone creates it with the flag. A Job
 * that failed otherwise is kept (the retry annotation runs it again).
 */
async function replaceRefusedJob(pass: Pass): Promise<void> {
  const stored = await readCurrent<V1Job>(pass.clients.objects, pass.manifests.migrationJob);
  const command = stored?.spec?.template.spec?.containers.find((container) => container.name === 'migrations')?.command ?? [];
  if (
    !stored ||
    jobOutcome(stored).state !== 'failed' ||
    command.includes(ALLOW_DOWNGRADE_FLAG) ||
    pass.migratedVersion === pass.shop.spec.image.tag
  )
    return;
  if (refusedDowngrade(await jobPods(pass, stored))) await deleteJob(pass, stored);
}

/**
 * The retry annotation: a failed migration Job of the tag is deleted (this one, by its uid, with its
 * pods), then the annotation is removed, whatever the Job's state, so that it acts once. Removed
 * second: when that fails, the next pass finds no failed Job and only removes it.
 */
async function retry(pass: Pass): Promise<void> {
  const { objects } = pass.clients;
  const stored = await readCurrent<V1Job>(objects, pass.manifests.migrationJob);
  if (stored && jobOutcome(stored).state === 'failed' && pass.migratedVersion !== pass.shop.spec.image.tag) await deleteJob(pass, stored);
  const { name, namespace, resourceVersion } = pass.shop.metadata;
  // With the resourceVersion read: an annotation set again meanwhile is not removed unseen (409, and the pass runs again).
  await pass.clients.customObjects.patchNamespacedCustomObject(
    {
      group: SHOP_API.group,
      version: SHOP_API.version,
      plural: SHOP_API.plural,
      namespace,
      name,
      body: { metadata: { resourceVersion, annotations: { [RETRY_MIGRATION_ANNOTATION]: null } } },
    },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
}

/** This Job (by its uid), with its pods. */
async function deleteJob(pass: Pass, job: V1Job): Promise<void> {
  try {
    // In the body, which overrides the query: a Job's default is to orphan its pods.
    await pass.clients.objects.delete(job as KubernetesObject, undefined, undefined, undefined, undefined, undefined, {
      propagationPolicy: 'Background',
      preconditions: { uid: job.metadata?.uid },
    });
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}
