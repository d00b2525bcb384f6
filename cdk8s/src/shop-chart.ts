import { Chart } from 'cdk8s';
import type { Construct } from 'constructs';
import { ApiService } from './api-service.ts';
import { ComponentAutoscaler } from './component-autoscaler.ts';
import { ComponentDeployment } from './component-deployment.ts';
import { DisruptionBudget } from './disruption-budget.ts';
import { API, CONSUMER, WORKER } from './components.ts';
import { ShopConfigMap } from './config-map.ts';
import { shopLabels } from './labels.ts';
import { MigrationJob } from './migration-job.ts';
import { ComponentNetworkPolicy, ShopDefaultDenyPolicy } from './network-policy.ts';
import { SPEC_DEFAULTS, type ShopContext } from './shop-context.ts';

/** Every object one Shop runs, in its namespace, with the Shop's labels. */
export class ShopChart extends Chart {
  constructor(scope: Construct, shop: ShopContext) {
    super(scope, shop.name, { namespace: shop.namespace, labels: shopLabels(shop) });
    const { spec } = shop;
    const config = new ShopConfigMap(this, 'config', shop);
    new MigrationJob(this, 'migration', shop, config);
    const apiAutoscaling = spec.api?.autoscaling;
    new ComponentDeployment(this, 'api', {
      shop,
      process: API,
      config,
      replicas: apiAutoscaling ? undefined : (spec.api?.replicas ?? SPEC_DEFAULTS.apiReplicas),
      strategy: 'RollingUpdate',
    });
    if (apiAutoscaling) new ComponentAutoscaler(this, 'api-autoscaler', shop, API, apiAutoscaling);
    new ApiService(this, 'api-service', shop);
    new DisruptionBudget(this, 'api-disruption-budget', shop, API);
    // The worker refuses to start without a workflow engine; the api then runs the sweeps itself.
    const workflows = spec.secrets.workflowHost !== undefined;
    const workerAutoscaling = workflows ? spec.worker?.autoscaling : undefined;
    new ComponentDeployment(this, 'worker', {
      shop,
      process: WORKER,
      config,
      replicas: !workflows ? 0 : workerAutoscaling ? undefined : (spec.worker?.replicas ?? SPEC_DEFAULTS.workerReplicas),
      strategy: 'RollingUpdate',
    });
    if (workerAutoscaling) new ComponentAutoscaler(this, 'worker-autoscaler', shop, WORKER, workerAutoscaling);
    new DisruptionBudget(this, 'worker-disruption-budget', shop, WORKER);
    // A consumer group runs in one instance only: never two pods, not even during a rollout; 0 pauses it.
    new ComponentDeployment(this, 'consumer', {
      shop,
      process: CONSUMER,
      config,
      replicas: Math.min(spec.consumer?.replicas ?? 1, 1),
      strategy: 'Recreate',
    });
    // Optional: what may connect to the Shop's pods. The api's port from anywhere unless apiFrom names peers; the metrics ports from metricsFrom alone.
    const networkPolicy = spec.networkPolicy;
    if (networkPolicy?.enabled) {
      new ShopDefaultDenyPolicy(this, 'default-deny-policy', shop);
      new ComponentNetworkPolicy(this, 'api-network-policy', {
        shop,
        process: API,
        from: networkPolicy.apiFrom?.length ? networkPolicy.apiFrom : undefined,
      });
      for (const process of [WORKER, CONSUMER]) {
        new ComponentNetworkPolicy(this, `${process.component}-network-policy`, { shop, process, from: networkPolicy.metricsFrom ?? [] });
      }
    }
  }
}
