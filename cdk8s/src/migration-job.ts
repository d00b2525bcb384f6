import { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-33';
import { ALLOW_DOWNGRADE_FLAG, MIGRATE_COMMAND } from './components.ts';
import type { ShopConfigMap } from './config-map.ts';
import { migrationJobName } from './names.ts';
import { podTemplate } from './pod-template.ts';
import type { ShopContext } from './shop-context.ts';

const RETRIES = 2;
/** A migration still running after an hour is stuck (a lock it waits for, a database gone): the Job fails, and the Shop says it timed out. */
export const MIGRATION_DEADLINE_SECONDS = 3_600;
/**
 * A finished Job (and its pods' logs) is kept a week. The operator does not need it once the
 * migrations are applied (status.migratedVersion); a failed Job that goes runs once more, as when it
 * is deleted by hand.
 */
export const MIGRATION_TTL_SECONDS = 7 * 86_400;
/**
 * The migration command's exits for a usage or configuration error (sysexits EX_USAGE, EX_CONFIG) and
 * for a schema newer than the image (EXIT_DOWNGRADE_REFUSED of @shop/runtime): a retry cannot help.
 */
const FINAL_EXIT_CODES = [64, 65, 78];

/**
 * Applies the migrations of spec.image.tag once: the Job's name carries the version. Its pod template
 * is immutable, so it carries nothing that changes without the version (no config hash). A pod
 * evicted or preempted does not count as a retry; an exit for a usage or configuration error, or a
 * refused downgrade, fails the Job at once.
 */
export class MigrationJob extends Construct {
  readonly name: string;

  constructor(scope: Construct, id: string, shop: ShopContext, config: ShopConfigMap) {
    super(scope, id);
    this.name = migrationJobName(shop.name, shop.spec.image.tag);
    new k8s.KubeJob(this, 'Resource', {
      metadata: { name: this.name, labels: { 'app.kubernetes.io/component': 'migrations' } },
      spec: {
        backoffLimit: RETRIES,
        activeDeadlineSeconds: MIGRATION_DEADLINE_SECONDS,
        ttlSecondsAfterFinished: MIGRATION_TTL_SECONDS,
        podFailurePolicy: {
          rules: [
            { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
            { action: 'FailJob', onExitCodes: { containerName: 'migrations', operator: 'In', values: FINAL_EXIT_CODES } },
          ],
        },
        template: podTemplate({
          shop,
          component: 'migrations',
          command: shop.allowDowngrade ? [...MIGRATE_COMMAND, ALLOW_DOWNGRADE_FLAG] : MIGRATE_COMMAND,
          configMapName: config.name,
          restartPolicy: 'Never',
        }),
      },
    });
  }
}
