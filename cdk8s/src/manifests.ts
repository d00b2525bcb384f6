import type { Shop } from './shop.generated.ts';

/** A Kubernetes object as plain JSON, ready for server-side apply. */
export interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly labels?: Record<string, string>;
    readonly annotations?: Record<string, string>;
    /** Never rendered (the owner's uid is only known in the cluster); the operator adds it. */
    readonly ownerReferences?: readonly OwnerReference[];
  };
  readonly [field: string]: unknown;
}

export interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller?: boolean;
  readonly blockOwnerDeletion?: boolean;
}

/**
 * Everything a Shop runs, rendered from its spec alone (a pure function: same Shop, same objects).
 * The operator applies these in order; `npm run synth` prints them.
 */
export interface ShopManifests {
  /** Non-secret configuration (spec.config) as environment for every container. */
  readonly configMap: KubeObject;
  /** Runs the migrations of spec.image.tag; its name carries the version, so each version migrates once. */
  readonly migrationJob: KubeObject;
  /** `autoscaler`: a HorizontalPodAutoscaler, when spec.<component>.autoscaling is set; the Deployment then has no replicas. */
  readonly api: {
    readonly deployment: KubeObject;
    readonly service: KubeObject;
    readonly disruptionBudget: KubeObject;
    readonly autoscaler?: KubeObject;
  };
  readonly worker: { readonly deployment: KubeObject; readonly disruptionBudget: KubeObject; readonly autoscaler?: KubeObject };
  /** Exactly one replica with the Recreate strategy: one instance per consumer group. */
  readonly consumer: { readonly deployment: KubeObject };
  /**
   * With spec.networkPolicy.enabled: `<shop>-default-deny` (every pod of the Shop accepts nothing) and
   * `<shop>-api`, `<shop>-worker`, `<shop>-consumer` (each component's http port, from the peers the spec names).
   */
  readonly networkPolicies?: {
    readonly defaultDeny: KubeObject;
    readonly api: KubeObject;
    readonly worker: KubeObject;
    readonly consumer: KubeObject;
  };
  /**
   * The explicit variables (the container's `env`) of the Jobs the operator derives from the migration
   * Job (the seed and the key rewrap): their programs read other secrets than the migrate command.
   */
  readonly jobEnvironments: Readonly<Record<'seed' | 'key-rewrap', readonly JobEnvVar[]>>;
}

/** A container variable, plain or from a Secret's key. */
export interface JobEnvVar {
  readonly name: string;
  readonly value?: string;
  readonly valueFrom?: { readonly secretKeyRef: { readonly name: string; readonly key: string; readonly optional?: boolean } };
}

export type RenderShop = (shop: Shop) => ShopManifests;

/**
 * The Secret the operator generates once for keys the Shop does not reference
 * (SECRET_KEY under `secret-key`, SECRETS_MASTER_KEY under `secrets-master-key`).
 */
export function generatedKeysSecretName(shopName: string): string {
  return `${shopName}-generated-keys`;
}

/**
 * The keys of the generated Secret. `secretsMasterKeyRotatingFrom` (the retired master keys,
 * comma-separated, for SECRETS_MASTER_KEY_ROTATING_FROM) and `secretKeyPrevious` (the signing key
 * before the last rotation, for SECRET_KEY_PREVIOUS) are optional: the containers start without them.
 */
export const GENERATED_KEYS = {
  secretKey: 'secret-key',
  secretKeyPrevious: 'secret-key-previous',
  secretsMasterKey: 'secrets-master-key',
  secretsMasterKeyRotatingFrom: 'secrets-master-key-rotating-from',
} as const;
