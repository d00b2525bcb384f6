import type { V1Job } from '@kubernetes/client-node';
import { apply, readCurrent } from '../../kube/apply.ts';
import { jobOutcome } from '../../kube/workload-state.ts';
import type { ReconcileStep } from '../pass.ts';

/**
 * The migration Job of spec.image.tag, once per version. Nothing after this step runs until the Job is
 * complete; a failed Job stops the Shop in phase Failed until the tag changes or the Job is deleted
 * (then it is created again and the migrations run again).
 */
export const migrations: ReconcileStep = {
  name: 'migrations',
  conditions: ['MigrationsApplied'],
  async run(pass) {
    const tag = pass.shop.spec.image.tag;
    const job = pass.manifests.migrationJob;
    const name = job.metadata.name;
    if (pass.migratedVersion === tag) {
      // Not even read: a Job removed after it completed (e.g. by a TTL) must not migrate again.
      pass.report('MigrationsApplied', { status: 'True', reason: 'MigrationsComplete', message: `the migrations of ${tag} are applied` });
      return undefined;
    }
    // A Job's template cannot change, so an existing Job is only read, never applied again.
    const current = (await readCurrent<V1Job>(pass.clients.objects, job)) ?? (await apply<V1Job>(pass.clients.objects, job));
    const outcome = jobOutcome(current);
    if (outcome.state === 'complete') {
      pass.migratedVersion = tag;
      pass.report('MigrationsApplied', { status: 'True', reason: 'MigrationsComplete', message: `Job ${name} applied the migrations of ${tag}` });
      return undefined;
    }
    if (outcome.state === 'failed') {
      const message = `Job ${name} failed (${outcome.reason}): ${outcome.message}`;
      pass.report('MigrationsApplied', { status: 'False', reason: 'MigrationFailed', message });
      return { phase: 'Failed', reason: 'MigrationFailed', message };
    }
    const message = `Job ${name} is applying the migrations of ${tag}`;
    pass.report('MigrationsApplied', { status: 'False', reason: 'MigrationRunning', message });
    return { phase: 'Migrating', reason: 'MigrationRunning', message };
  },
};
