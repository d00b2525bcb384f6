import { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-33';
import { API } from './components.ts';
import { selectorLabels } from './labels.ts';
import { shopObjectNames } from './names.ts';
import { HTTP_PORT_NAME } from './probes.ts';
import type { ShopContext } from './shop-context.ts';

/** `<shop>-api` inside the cluster: port 80 (`http`) to the api containers' named port. */
export class ApiService extends Construct {
  constructor(scope: Construct, id: string, shop: ShopContext) {
    super(scope, id);
    new k8s.KubeService(this, 'Resource', {
      metadata: { name: shopObjectNames(shop.name).api, labels: { 'app.kubernetes.io/component': API.component } },
      spec: {
        type: 'ClusterIP',
        selector: selectorLabels(shop, API.component),
        ports: [
          { name: HTTP_PORT_NAME, port: 80, targetPort: k8s.IntOrString.fromString(HTTP_PORT_NAME), protocol: 'TCP', appProtocol: 'http' },
        ],
      },
    });
  }
}
