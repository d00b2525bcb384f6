import type { KubeObject, RenderShop, Shop } from '@shop/cdk8s';

/**
 * A small stand-in for @shop/cdk8s' renderShop: valid objects of the kinds ShopManifests holds, enough
 * for the API server to accept them and for the tests to tell versions and sizes apart.
 */
export const testRender: RenderShop = (shop: Shop) => {
  const name = shop.metadata?.name ?? 'unnamed';
  const { tag, repository } = shop.spec.image;
  const image = `${repository}:${tag}`;
  const selector = (component: string) => ({ 'app.kubernetes.io/instance': name, 'app.kubernetes.io/component': component });
  // As the renderer's: the operator watches pods by the managed-by label and maps them to the Shop by instance.
  const podLabels = (component: string) => ({ ...selector(component), 'app.kubernetes.io/managed-by': 'shop-operator' });
  const nodeSelector = shop.spec.podDefaults?.nodeSelector;
  const podSpec = (component: string, restartPolicy?: string) => ({
    ...(restartPolicy ? { restartPolicy } : {}),
    ...(nodeSelector ? { nodeSelector } : {}),
    containers: [{ name: component, image, envFrom: [{ configMapRef: { name: `${name}-config` } }] }],
  });
  const deployment = (component: string, replicas: number): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: `${name}-${component}`, labels: selector(component) },
    spec: {
      replicas,
      selector: { matchLabels: selector(component) },
      template: { metadata: { labels: podLabels(component) }, spec: podSpec(component) },
    },
  });
  const disruptionBudget = (component: string): KubeObject => ({
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: `${name}-${component}` },
    spec: { maxUnavailable: 1, selector: { matchLabels: selector(component) } },
  });
  return {
    configMap: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-config` }, data: { ...shop.spec.config } },
    migrationJob: {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: `${name}-migrate-${tag.replaceAll(/[^a-z0-9-]/g, '-')}` },
      spec: {
        backoffLimit: 0,
        activeDeadlineSeconds: 3600,
        template: { metadata: { labels: podLabels('migrations') }, spec: podSpec('migrations', 'Never') },
      },
    },
    api: {
      deployment: deployment('api', shop.spec.api?.replicas ?? 2),
      service: {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: `${name}-api` },
        spec: { selector: selector('api'), ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
      },
      disruptionBudget: disruptionBudget('api'),
    },
    worker: { deployment: deployment('worker', shop.spec.worker?.replicas ?? 1), disruptionBudget: disruptionBudget('worker') },
    consumer: { deployment: deployment('consumer', shop.spec.consumer?.replicas ?? 1) },
    jobEnvironments: { seed: [], 'key-rewrap': [] },
  };
};
