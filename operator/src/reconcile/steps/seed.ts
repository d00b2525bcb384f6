import type { V1Job } from '@kubernetes/client-node';
import { SEED_COMMAND, type KubeObject } from '@shop/cdk8s';
import { apply, readCurrent } from '../../kube/apply.ts';
import { derivedJob } from '../../kube/derived-job.ts';
import { lastTermination } from '../../kube/pod-failures.ts';
import { jobOutcome, jobPodSelector } from '../../kube/workload-state.ts';
import type { Pass, ReconcileStep } from '../pass.ts';
import { jobStartFailure } from '../workload-failures.ts';

/** `<shop>-seed`: a DNS label for every Shop name the renderer accepts (at most 54 characters). */
export const seedJobName = (shopName: string): string => `${shopName}-seed`;

/** The seed variables, from the keys of spec.seed.adminSecretName. */
const ADMIN_KEYS = [
  { variable: 'SEED_ADMIN_EMAIL', key: 'email', optional: false },
  { variable: 'SEED_ADMIN_PASSWORD', key: 'password', optional: false },
  { variable: 'SEED_ADMIN_NAME', key: 'name', optional: true },
] as const;

/**
 * spec.seed: once the migrations are applied, the seed Job creates the first admin, before the api
 * starts; status.seededAt records that it completed, and from then on the Job is never looked at or
 * created again (also when it is gone, or spec.seed changes). A failed Job stops the Shop as
 * SeedFailed until it is deleted (then it runs again).
 */
export const seed: ReconcileStep = {
  name: 'seed',
  conditions: [],
  async run(pass) {
    const secretName = pass.shop.spec.seed?.adminSecretName;
    if (secretName === undefined || pass.seededAt !== undefined) return undefined;
    const job = seedJob(pass, secretName);
    pass.provisioned.push(job);
    const name = job.metadata.name;
    // A Job's template cannot change: an existing one is only read.
    const current = (await readCurrent<V1Job>(pass.clients.objects, job)) ?? (await apply<V1Job>(pass.clients.objects, job));
    const outcome = jobOutcome(current);
    if (outcome.state === 'complete') {
      pass.seededAt = pass.now.toISOString();
      return undefined;
    }
    if (outcome.state === 'failed') {
      const pods = (
        await pass.clients.core.listNamespacedPod({ namespace: pass.shop.metadata.namespace, labelSelector: jobPodSelector(current) })
      ).items;
      const lastPod = lastTermination(pods);
      const message = `seed Job ${name} failed (${outcome.reason}): ${outcome.message}${lastPod ? `; ${lastPod}` : ''}; delete the Job to run it again`;
      return { phase: 'Failed', reason: 'SeedFailed', message };
    }
    const failure = await jobStartFailure(pass, current, 'seed');
    if (failure) return { phase: 'Degraded', ...failure };
    return { phase: 'Migrating', reason: 'SeedRunning', message: `Job ${name} is creating the first admin from Secret ${secretName}` };
  },
};

function seedJob(pass: Pass, secretName: string): KubeObject {
  const job = derivedJob(pass.manifests, seedJobName(pass.shop.metadata.name), 'seed', SEED_COMMAND);
  const [container] = job.spec.template.spec.containers;
  if (container) {
    const variables = ADMIN_KEYS.map(({ variable, key, optional }) => ({
      name: variable,
      valueFrom: { secretKeyRef: { name: secretName, key, ...(optional ? { optional } : {}) } },
    }));
    container.env = [...(container.env ?? []), ...variables];
  }
  return job as unknown as KubeObject;
}
