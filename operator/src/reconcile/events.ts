import type { CoreV1Event } from '@kubernetes/client-node';
import type { ShopStatus } from '@shop/cdk8s';
import type { KubeClients } from '../kube/clients.ts';
import { FIELD_MANAGER } from '../kube/ownership.ts';
import { SHOP_API, SHOP_API_VERSION, type StoredShop } from '../shop-resource.ts';
import { CONDITION_TYPES } from './conditions.ts';

export interface Transition {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

/**
 * The changes worth an Event between two statuses: a new phase, and a condition whose status changed.
 * A condition appearing as False is not news (everything starts that way), and Ready moves with the
 * phase, which already has its Event. Failures are Warnings: phase Failed or Degraded, Degraded True,
 * a reason ending in Failed.
 */
export function transitions(previous: ShopStatus | undefined, next: ShopStatus): Transition[] {
  const found: Transition[] = [];
  if (next.phase !== undefined && next.phase !== previous?.phase) {
    found.push({
      type: next.phase === 'Failed' || next.phase === 'Degraded' ? 'Warning' : 'Normal',
      reason: next.phase,
      message: next.message ?? '',
    });
  }
  for (const type of CONDITION_TYPES) {
    if (type === 'Ready') continue;
    const before = previous?.conditions?.find((condition) => condition.type === type);
    const after = next.conditions?.find((condition) => condition.type === type);
    if (!after || after.status === before?.status || (!before && after.status === 'False')) continue;
    found.push({
      type: after.reason.endsWith('Failed') || (type === 'Degraded' && after.status === 'True') ? 'Warning' : 'Normal',
      reason: type,
      message: `${after.status} (${after.reason}): ${after.message}`,
    });
  }
  return found;
}

/** Kubernetes caps an Event's message; a longer one is cut rather than refused. */
const MAX_MESSAGE_LENGTH = 1024;

/** Records each transition as a core/v1 Event on the Shop, shown by `kubectl describe shop`. */
export async function recordEvents(clients: KubeClients, shop: StoredShop, found: readonly Transition[], instance: string): Promise<void> {
  const { name, namespace, uid, resourceVersion } = shop.metadata;
  for (const transition of found) {
    const now = new Date();
    const event: CoreV1Event = {
      metadata: { generateName: `${name}.`, namespace },
      involvedObject: { apiVersion: SHOP_API_VERSION, kind: SHOP_API.kind, name, namespace, uid, resourceVersion },
      type: transition.type,
      reason: transition.reason,
      message: transition.message.slice(0, MAX_MESSAGE_LENGTH),
      source: { component: FIELD_MANAGER },
      reportingComponent: FIELD_MANAGER,
      reportingInstance: instance,
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
    };
    await clients.core.createNamespacedEvent({ namespace, body: event });
  }
}
