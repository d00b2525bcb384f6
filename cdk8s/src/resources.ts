import { k8s } from 'cdk8s-plus-33';
import type { ShopSpec } from './shop.generated.ts';

export type ComponentResources = NonNullable<NonNullable<ShopSpec['api']>['resources']>;
type Amounts = NonNullable<ComponentResources['requests']>;

/** spec.<component>.resources as a container's resources; absent when the spec sets none. */
export function containerResources(resources: ComponentResources | undefined): k8s.ResourceRequirements | undefined {
  if (!resources) return undefined;
  return { requests: quantities(resources.requests), limits: quantities(resources.limits) };
}

function quantities(amounts: Amounts | undefined): Record<string, k8s.Quantity> | undefined {
  if (!amounts) return undefined;
  const entries = Object.entries(amounts).filter((entry): entry is [string, number | string] => entry[1] !== undefined);
  if (entries.length === 0) return undefined;
  return Object.fromEntries(
    entries.map(([resource, amount]) => [resource, typeof amount === 'number' ? k8s.Quantity.fromNumber(amount) : k8s.Quantity.fromString(amount)]),
  );
}
