import type { k8s } from 'cdk8s-plus-33';
import type { Component } from './labels.ts';
import type { ShopSpec } from './shop.generated.ts';

type PodDefaults = NonNullable<ShopSpec['podDefaults']>;

/** The Pod fields a Shop sets per component and in spec.podDefaults. */
const POD_SETTINGS = [
  'imagePullSecrets',
  'serviceAccountName',
  'nodeSelector',
  'tolerations',
  'affinity',
  'topologySpreadConstraints',
  'priorityClassName',
] as const satisfies ReadonlyArray<keyof PodDefaults>;

type PodSettings = Pick<PodDefaults, (typeof POD_SETTINGS)[number]>;

/** The section of the spec a component's pods follow: the migration Job (and the rewrap Jobs made from it) follow the api's. */
export function componentSpec(spec: ShopSpec, component: Component): ShopSpec['consumer'] {
  return component === 'migrations' ? spec.api : spec[component];
}

/**
 * The component's pod settings, each taken from the component when set there, else from
 * spec.podDefaults. The CRD keeps affinity, tolerations and topologySpreadConstraints opaque; cdk8s's
 * Kubernetes 1.33 types carry the fields Kubernetes knows of them into the pod spec.
 */
export function podSettings(spec: ShopSpec, component: Component): Pick<k8s.PodSpec, (typeof POD_SETTINGS)[number]> {
  const own: PodSettings = componentSpec(spec, component) ?? {};
  const defaults: PodSettings = spec.podDefaults ?? {};
  return Object.fromEntries(
    POD_SETTINGS.flatMap((field) => {
      const value = own[field] ?? defaults[field];
      return value === undefined ? [] : [[field, value]];
    }),
  ) as Pick<k8s.PodSpec, (typeof POD_SETTINGS)[number]>;
}
