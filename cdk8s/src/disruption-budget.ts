import { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-33';
import type { ServiceProcess } from './components.ts';
import { selectorLabels } from './labels.ts';
import { shopObjectNames } from './names.ts';
import type { ShopContext } from './shop-context.ts';

/**
 * `<shop>-<component>`: at most one of the component's pods evicted at a time, whatever the replica
 * count: with several replicas the others keep working; with one, a node drain may still proceed
 * (minAvailable 1 would block it forever). Pods that are not ready anyway may always be evicted, so a
 * crash-looping pod never blocks a drain.
 */
export class DisruptionBudget extends Construct {
  constructor(scope: Construct, id: string, shop: ShopContext, process: ServiceProcess) {
    super(scope, id);
    new k8s.KubePodDisruptionBudget(this, 'Resource', {
      metadata: { name: shopObjectNames(shop.name)[process.component], labels: { 'app.kubernetes.io/component': process.component } },
      spec: {
        maxUnavailable: k8s.IntOrString.fromNumber(1),
        selector: { matchLabels: selectorLabels(shop, process.component) },
        unhealthyPodEvictionPolicy: 'AlwaysAllow',
      },
    });
  }
}
