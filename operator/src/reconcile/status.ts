import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { ShopStatus } from '@shop/cdk8s';
import type { KubeClients } from '../kube/clients.ts';
import { FIELD_MANAGER } from '../kube/ownership.ts';
import { SHOP_API, SHOP_API_VERSION, type StoredShop } from '../shop-resource.ts';
import { CONDITION_TYPES, nextCondition, type ConditionReport, type ConditionType } from './conditions.ts';
import type { Phase } from './pass.ts';

/** What one pass found, for the generation it read. */
export interface Observation {
  readonly generation: number;
  readonly phase: Phase;
  readonly message: string;
  readonly migratedVersion: string | undefined;
  readonly migratedDigest?: string;
  readonly seededAt?: string;
  readonly keyRotation?: ShopStatus['keyRotation'];
  readonly renderHash?: string;
  readonly conditions: ReadonlyMap<ConditionType, ConditionReport>;
}

const NOT_REPORTED: ConditionReport = { status: 'Unknown', reason: 'NotReported', message: 'no step reported this condition' };

export function nextStatus(previous: ShopStatus | undefined, observation: Observation, now: Date): ShopStatus {
  return {
    observedGeneration: observation.generation,
    phase: observation.phase,
    message: observation.message,
    ...(observation.migratedVersion === undefined ? {} : { migratedVersion: observation.migratedVersion }),
    ...(observation.migratedDigest === undefined ? {} : { migratedDigest: observation.migratedDigest }),
    ...(observation.seededAt === undefined ? {} : { seededAt: observation.seededAt }),
    ...(observation.keyRotation === undefined ? {} : { keyRotation: observation.keyRotation }),
    ...(observation.renderHash === undefined ? {} : { renderHash: observation.renderHash }),
    conditions: CONDITION_TYPES.map((type) =>
      nextCondition(
        type,
        observation.conditions.get(type) ?? NOT_REPORTED,
        previous?.conditions?.find((condition) => condition.type === type),
        observation.generation,
        now,
      ),
    ),
  };
}

/** Whether the fields this operator writes differ; conditions of other types are not its to compare. */
export function statusChanged(previous: ShopStatus | undefined, next: ShopStatus): boolean {
  return JSON.stringify(ownFields(previous)) !== JSON.stringify(ownFields(next));
}

function ownFields(status: ShopStatus | undefined): unknown {
  const condition = (type: ConditionType) => {
    const found = status?.conditions?.find((candidate) => candidate.type === type);
    return found && [found.status, found.reason, found.message, found.observedGeneration, found.lastTransitionTime];
  };
  return [
    status?.observedGeneration,
    status?.phase,
    status?.message,
    status?.migratedVersion,
    status?.migratedDigest,
    status?.seededAt,
    status?.keyRotation,
    status?.renderHash,
    CONDITION_TYPES.map(condition),
  ];
}

/**
 * Server-side apply of the status subresource. The Shop's resourceVersion is a precondition: when the
 * Shop changed since the pass read it (a new generation, say), the write fails with a conflict instead
 * of describing a Shop that no longer exists, and the change's own event brings a fresh pass.
 */
export async function writeStatus(clients: KubeClients, shop: StoredShop, status: ShopStatus): Promise<void> {
  const { name, namespace, resourceVersion } = shop.metadata;
  await clients.customObjects.patchNamespacedCustomObjectStatus(
    {
      group: SHOP_API.group,
      version: SHOP_API.version,
      plural: SHOP_API.plural,
      namespace,
      name,
      body: { apiVersion: SHOP_API_VERSION, kind: SHOP_API.kind, metadata: { name, namespace, resourceVersion }, status },
      fieldManager: FIELD_MANAGER,
      force: true,
    },
    setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
  );
}
