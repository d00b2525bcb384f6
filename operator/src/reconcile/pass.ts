import type { KubernetesObject, V1Secret } from '@kubernetes/client-node';
import type { KubeObject, ShopManifests, ShopStatus } from '@shop/cdk8s';
import type { KeySet } from '../keys/key-set.ts';
import type { KeyRotationStatus } from '../keys/rotation-report.ts';
import type { KubeClients } from '../kube/clients.ts';
import type { FailureThresholds } from '../kube/pod-failures.ts';
import type { MonitoringApplyResult } from '../metrics.ts';
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

/** The generated keys Secret as stored, and the keys it holds. */
export interface GeneratedKeys {
  readonly secret: V1Secret;
  readonly keys: KeySet;
}

/** One reconcile pass of one Shop, shared by its steps. */
export interface Pass {
  readonly shop: StoredShop;
  /** Rendered from the spec, owned by the Shop and placed in its namespace. */
  readonly manifests: ShopManifests;
  readonly clients: KubeClients;
  readonly now: Date;
  /** The operator's RUNBOOK_BASE_URL (ending in /); the alert rules keep their generated runbook_url when undefined. */
  readonly runbookBaseUrl: string | undefined;
  /** When a pod that does not run counts as failed rather than still starting. */
  readonly failureThresholds: FailureThresholds;
  /** status.migratedVersion as this pass will write it. */
  migratedVersion: string | undefined;
  /** status.migratedDigest as this pass will write it. */
  migratedDigest: string | undefined;
  /** status.seededAt as this pass will write it. */
  seededAt: string | undefined;
  /** The generated keys, when the Shop uses any of them. */
  generatedKeys: GeneratedKeys | undefined;
  /** The Secrets spec.secrets names, by name, as the referenced-secrets step read them (undefined: it does not exist). */
  readonly referencedSecrets: Map<string, V1Secret | undefined>;
  /** status.keyRotation as this pass will write it. */
  keyRotation: KeyRotationStatus | undefined;
  /** Owned objects a step applied or read besides the manifests (the monitoring objects, a rewrap Job): pruning keeps them. */
  readonly provisioned: KubeObject[];
  /** How many Jobs of each kind (migrations, key rewrap) pruning keeps. */
  readonly jobHistoryLimit: number;
  /** The Prometheus Operator's kinds the API server serves, asked of discovery once per pass. */
  servedMonitoringKinds(): Promise<ReadonlySet<string>>;
  /** The owned object as the operator's watches hold it; undefined when they hold none (absent, not watched, not listed yet). */
  cached(object: KubeObject): KubernetesObject | undefined;
  /** The resourceVersion the operator's last apply of each monitoring object returned, by `kind/name`; kept between passes. */
  readonly lastApplied: Map<string, string>;
  /** Counts what became of one monitoring object (shop_operator_monitoring_applies_total). */
  countMonitoringApply(result: MonitoringApplyResult): void;
  report(type: StepConditionType, report: ConditionReport): void;
  /** Look at the Shop again after this long at the latest, also when no step halts (e.g. when a rotation is due). */
  requeueAfter(ms: number): void;
}

export interface ReconcileStep {
  readonly name: string;
  /** The conditions the step reports. A pass halted before the step sets them False with the halt's reason. */
  readonly conditions: readonly StepConditionType[];
  /** Undefined to go on with the next step. */
  run(pass: Pass): Promise<Halt | undefined>;
}
