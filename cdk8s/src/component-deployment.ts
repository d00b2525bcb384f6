import { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-33';
import type { ServiceProcess } from './components.ts';
import type { ShopConfigMap } from './config-map.ts';
import { selectorLabels } from './labels.ts';
import { shopObjectNames } from './names.ts';
import { podTemplate } from './pod-template.ts';
import type { ShopContext } from './shop-context.ts';

export interface ComponentDeploymentProps {
  readonly shop: ShopContext;
  readonly process: ServiceProcess;
  readonly config: ShopConfigMap;
  /** None when an autoscaler owns them. */
  readonly replicas: number | undefined;
  /** Surge one new pod before an old one stops; or stop the old pod first, so that two never run at once. */
  readonly strategy: 'RollingUpdate' | 'Recreate';
}

/** `<shop>-<component>`: the platform image running one service process. */
export class ComponentDeployment extends Construct {
  readonly name: string;

  constructor(scope: Construct, id: string, props: ComponentDeploymentProps) {
    super(scope, id);
    const { shop, process } = props;
    this.name = shopObjectNames(shop.name)[process.component];
    new k8s.KubeDeployment(this, 'Resource', {
      metadata: { name: this.name, labels: { 'app.kubernetes.io/component': process.component } },
      spec: {
        replicas: props.replicas,
        selector: { matchLabels: selectorLabels(shop, process.component) },
        strategy:
          props.strategy === 'Recreate'
            ? { type: 'Recreate' }
            : {
                type: 'RollingUpdate',
                rollingUpdate: { maxUnavailable: k8s.IntOrString.fromNumber(0), maxSurge: k8s.IntOrString.fromNumber(1) },
              },
        template: podTemplate({
          shop,
          component: process.component,
          command: process.command,
          configMapName: props.config.name,
          restartPolicy: 'Always',
          http: process.http,
        }),
      },
    });
  }
}
