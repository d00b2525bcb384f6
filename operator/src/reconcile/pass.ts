import type { ShopManifests, ShopStatus } from '@shop/cdk8s';
import type { KubeClients } from '../kube/clients.ts';
import type { StoredShop } from '../shop-resource.ts';
import type { ConditionReport, StepConditionType } from './conditions.ts';

export type Phase = NonNullable<ShopStatus['phase']>;

/** Why a pass stops before its last step: the steps after it wait for the next pass. */
export interface Halt {
  readonly phase: Exclude<Phase, 'Ready'>;
  /** CamelCase; also the reason of Ready and of every condition the pass did not reach. */
  readonly reason: string;
  readonly message: string;
  /** For waits nothing watched will end (e.g. a Secret appearing): look again after this long. */
  readonly requeueAfterMs?: number;
}

/** One reconcile pass of one Shop, shared by its steps. */
export interface Pass {
  readonly shop: StoredShop;
  /** Rendered from the spec, owned by the Shop and placed in its namespace. */
  readonly manifests: ShopManifests;
  readonly clients: KubeClients;
  /** status.migratedVersion as this pass will write it. */
  migratedVersion: string | undefined;
  report(type: StepConditionType, report: ConditionReport): void;
}

export interface ReconcileStep {
  readonly name: string;
  /** The conditions the step reports. A pass halted before the step sets them False with the halt's reason. */
  readonly conditions: readonly StepConditionType[];
  /** Undefined to go on with the next step. */
  run(pass: Pass): Promise<Halt | undefined>;
}
