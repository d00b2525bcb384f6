import { Chart } from 'cdk8s';
import type { Construct } from 'constructs';
import { ApiDisruptionBudget } from './api-disruption-budget.ts';
import { ApiService } from './api-service.ts';
import { ComponentDeployment } from './component-deployment.ts';
import { API, CONSUMER, WORKER } from './components.ts';
import { ShopConfigMap } from './config-map.ts';
import { shopLabels } from './labels.ts';
import { MigrationJob } from './migration-job.ts';
import { SPEC_DEFAULTS, type ShopContext } from './shop-context.ts';

/** Every object one Shop runs, in its namespace, with the Shop's labels. */
export class ShopChart extends Chart {
  constructor(scope: Construct, shop: ShopContext) {
    super(scope, shop.name, { namespace: shop.namespace, labels: shopLabels(shop) });
    const { spec } = shop;
    const config = new ShopConfigMap(this, 'config', shop);
    new MigrationJob(this, 'migration', shop, config);
    new ComponentDeployment(this, 'api', {
      shop,
      process: API,
      config,
      replicas: spec.api?.replicas ?? SPEC_DEFAULTS.apiReplicas,
      resources: spec.api?.resources,
      strategy: 'RollingUpdate',
    });
    new ApiService(this, 'api-service', shop);
    new ApiDisruptionBudget(this, 'api-disruption-budget', shop);
    // The worker refuses to start without a workflow engine; the api then runs the sweeps itself.
    new ComponentDeployment(this, 'worker', {
      shop,
      process: WORKER,
      config,
      replicas: spec.secrets.workflowHost === undefined ? 0 : (spec.worker?.replicas ?? SPEC_DEFAULTS.workerReplicas),
      resources: spec.worker?.resources,
      strategy: 'RollingUpdate',
    });
    // A consumer group runs in one instance only: never two pods, not even during a rollout; 0 pauses it.
    new ComponentDeployment(this, 'consumer', {
      shop,
      process: CONSUMER,
      config,
      replicas: Math.min(spec.consumer?.replicas ?? 1, 1),
      resources: spec.consumer?.resources,
      strategy: 'Recreate',
    });
  }
}
