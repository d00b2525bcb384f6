import { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-33';
import type { ServiceProcess } from './components.ts';
import { shopObjectNames } from './names.ts';
import type { ShopSpec } from './shop.generated.ts';
import type { ShopContext } from './shop-context.ts';

export type Autoscaling = NonNullable<NonNullable<ShopSpec['api']>['autoscaling']>;

/** The target when the spec sets none. */
const DEFAULT_CPU_UTILIZATION = 70;

/**
 * `<shop>-<component>`: scales the component's Deployment on the pods' CPU use relative to their
 * requests. The Deployment is then rendered without replicas, so the operator's apply leaves them to it.
 */
export class ComponentAutoscaler extends Construct {
  constructor(scope: Construct, id: string, shop: ShopContext, process: ServiceProcess, autoscaling: Autoscaling) {
    super(scope, id);
    const name = shopObjectNames(shop.name)[process.component];
    new k8s.KubeHorizontalPodAutoscalerV2(this, 'Resource', {
      metadata: { name, labels: { 'app.kubernetes.io/component': process.component } },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
        minReplicas: autoscaling.minReplicas,
        maxReplicas: autoscaling.maxReplicas,
        metrics: [
          {
            type: 'Resource',
            resource: {
              name: 'cpu',
              target: { type: 'Utilization', averageUtilization: autoscaling.targetCPUUtilizationPercentage ?? DEFAULT_CPU_UTILIZATION },
            },
          },
        ],
      },
    });
  }
}
