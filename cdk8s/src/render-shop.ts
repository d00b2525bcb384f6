import { App } from 'cdk8s';
import { configMapName } from './config-map.ts';
import { explicitVariables, type JobWorkload } from './environment.ts';
import { defaultDenyPolicyName } from './network-policy.ts';
import type { JobEnvVar, KubeObject, ShopManifests } from './manifests.ts';
import { shopObjectNames, migrationJobName } from './names.ts';
import { ShopChart } from './shop-chart.ts';
import { shopContext, type ShopContext } from './shop-context.ts';
import type { Shop } from './shop.generated.ts';

/** Renders the objects of a Shop from its spec alone: no cluster, no clock, no randomness. */
export function renderShop(shop: Shop): ShopManifests {
  const context = shopContext(shop);
  const objects = new ShopChart(new App(), context).toJson() as KubeObject[];
  const take = objectTaker(objects);
  const names = shopObjectNames(context.name);
  const defaultDeny = take.optional('NetworkPolicy', defaultDenyPolicyName(context.name));
  const manifests: ShopManifests = {
    configMap: take('ConfigMap', configMapName(context)),
    migrationJob: take('Job', migrationJobName(context.name, context.spec.image.tag)),
    api: {
      deployment: take('Deployment', names.api),
      service: take('Service', names.api),
      disruptionBudget: take('PodDisruptionBudget', names.api),
      autoscaler: take.optional('HorizontalPodAutoscaler', names.api),
    },
    worker: {
      deployment: take('Deployment', names.worker),
      disruptionBudget: take('PodDisruptionBudget', names.worker),
      autoscaler: take.optional('HorizontalPodAutoscaler', names.worker),
    },
    consumer: { deployment: take('Deployment', names.consumer) },
    networkPolicies: defaultDeny && {
      defaultDeny,
      api: take('NetworkPolicy', names.api),
      worker: take('NetworkPolicy', names.worker),
      consumer: take('NetworkPolicy', names.consumer),
    },
    jobEnvironments: { seed: jobEnvironment(context, 'seed'), 'key-rewrap': jobEnvironment(context, 'key-rewrap') },
  };
  const left = take.remaining();
  if (left.length > 0) throw new Error(`renderShop: the chart rendered objects ShopManifests has no field for: ${left.join(', ')}`);
  return manifests;
}

/** The manifests in the order to apply them by hand: the migration Job first, as the operator runs it. */
export function manifestList(manifests: ShopManifests): KubeObject[] {
  return [
    manifests.migrationJob,
    manifests.configMap,
    ...(manifests.networkPolicies ? Object.values(manifests.networkPolicies) : []),
    manifests.api.deployment,
    manifests.api.service,
    manifests.api.disruptionBudget,
    ...(manifests.api.autoscaler ? [manifests.api.autoscaler] : []),
    manifests.worker.deployment,
    manifests.worker.disruptionBudget,
    ...(manifests.worker.autoscaler ? [manifests.worker.autoscaler] : []),
    manifests.consumer.deployment,
  ];
}

/** As JSON, the form of the rendered objects (no undefined fields). */
function jobEnvironment(shop: ShopContext, workload: JobWorkload): JobEnvVar[] {
  return JSON.parse(JSON.stringify(explicitVariables(shop, workload))) as JobEnvVar[];
}

function objectTaker(objects: readonly KubeObject[]) {
  const byKey = new Map(objects.map((object) => [`${object.kind}/${object.metadata.name}`, object]));
  const take = (kind: string, name: string): KubeObject => {
    const object = byKey.get(`${kind}/${name}`);
    if (!object) throw new Error(`renderShop: the chart rendered no ${kind} named ${name}`);
    byKey.delete(`${kind}/${name}`);
    return object;
  };
  /** The object when the chart rendered one (an optional part of the Shop). */
  const optional = (kind: string, name: string): KubeObject | undefined => (byKey.has(`${kind}/${name}`) ? take(kind, name) : undefined);
  return Object.assign(take, { optional, remaining: () => [...byKey.keys()] });
}
