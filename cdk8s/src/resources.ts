import { k8s } from 'cdk8s-plus-33';
import type { Component } from './labels.ts';
import type { ShopSpec } from './shop.generated.ts';

export type ComponentResources = NonNullable<NonNullable<ShopSpec['api']>['resources']>;
type Amounts = NonNullable<ComponentResources['requests']>;

/**
 * What a container gets when the Shop sets no resources for its component. Memory is limited, so a leak
 * ends in a restart rather than on a starved node. Only the api has a CPU limit: its start-api runs one
 * api process per CPU of the limit (API_WORKERS), and one keeps the memory within bounds; the worker and
 * the consumer run one process each and are not throttled.
 */
const API_RESOURCES: ComponentResources = { requests: { cpu: '250m', memory: '256Mi' }, limits: { cpu: '1', memory: '512Mi' } };

export const DEFAULT_RESOURCES: Record<Component, ComponentResources> = {
  api: API_RESOURCES,
  worker: { requests: { cpu: '100m', memory: '256Mi' }, limits: { memory: '512Mi' } },
  consumer: { requests: { cpu: '100m', memory: '192Mi' }, limits: { memory: '384Mi' } },
  // Sized like the api, the process closest to it; the spec has no size for the Job.
  migrations: API_RESOURCES,
};

/** spec.<component>.resources as a container's resources, or the component's defaults when the spec sets none. */
export function containerResources(resources: ComponentResources | undefined, component: Component): k8s.ResourceRequirements {
  const chosen = resources ?? DEFAULT_RESOURCES[component];
  return { requests: quantities(chosen.requests), limits: quantities(chosen.limits) };
}

function quantities(amounts: Amounts | undefined): Record<string, k8s.Quantity> | undefined {
  if (!amounts) return undefined;
  const entries = Object.entries(amounts).filter((entry): entry is [string, number | string] => entry[1] !== undefined);
  if (entries.length === 0) return undefined;
  return Object.fromEntries(
    entries.map(([resource, amount]) => [
      resource,
      typeof amount === 'number' ? k8s.Quantity.fromNumber(amount) : k8s.Quantity.fromString(amount),
    ]),
  );
}
