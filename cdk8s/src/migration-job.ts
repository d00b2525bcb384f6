import { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-33';
import { MIGRATE_COMMAND } from './components.ts';
import type { ShopConfigMap } from './config-map.ts';
import { migrationJobName } from './names.ts';
import { podTemplate } from './pod-template.ts';
import type { ShopContext } from './shop-context.ts';

const RETRIES = 2;

/**
 * Applies the migrations of spec.image.tag once: the Job's name carries the version. It is kept after
 * it finishes (no ttlSecondsAfterFinished) because the operator reads its status. Its pod template
 * is immutable, so it carries nothing that changes without the version (no config hash).
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
        template: podTemplate({
          shop,
          component: 'migrations',
          command: MIGRATE_COMMAND,
          configMapName: config.name,
          // Sized like the api, the process closest to it; the spec has no size for the Job.
          resources: shop.spec.api?.resources,
          restartPolicy: 'Never',
        }),
      },
    });
  }
}
