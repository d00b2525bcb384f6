import type { Shop, ShopManifests, ShopStatus } from '@shop/cdk8s';
import { servedKinds } from '../kube/api-discovery.ts';
import type { KubeClients } from '../kube/clients.ts';
import { MONITORING_API_VERSION } from '../monitoring/prometheus-rule.ts';
import { DEFAULT_FAILURE_THRESHOLDS, type FailureThresholds } from '../kube/pod-failures.ts';
import { InvalidObjectError, describeError, isConflict, isNotFound, isRejected } from '../kube/errors.ts';
import { ownedManifests } from '../kube/ownership.ts';
import type { Logger } from '@shop/runtime';
import type { MonitoringApplyResult } from '../metrics.ts';
import type { WatchCache } from '../watches.ts';
import { SHOP_API, isStoredShop, parseShopKey, shopKey, type ShopKey, type StoredShop } from '../shop-resource.ts';
import type { PassOutcome } from '../work-queue.ts';
import type { ConditionReport, ConditionType, StepConditionType } from './conditions.ts';
import { recordEvents, transitions } from './events.ts';
import type { Halt, Pass, Phase, ReconcileStep } from './pass.ts';
import type { LastApplied } from './last-applied.ts';
import type { RenderCache } from './render-cache.ts';
import { renderChangedByOperator, renderHash, type RolloutGate } from './rollout-gate.ts';
import { nextStatus, statusChanged, writeStatus } from './status.ts';

/** Finished Jobs stay for their logs and status; three versions back is enough to look into an upgrade. */
export const DEFAULT_JOB_HISTORY_LIMIT = 3;

export interface ReconcilerOptions {
  readonly clients: KubeClients;
  /** Renders each Shop again only when its spec changed. */
  readonly renders: RenderCache;
  /** What the operator last applied of each Shop's monitoring objects. */
  readonly lastApplied: LastApplied;
  /** The watches' caches; told which monitoring kinds discovery found served. */
  readonly watchCache: WatchCache;
  /** Told what became of each monitoring object a pass provisions. */
  readonly onMonitoringApply?: (result: MonitoringApplyResult) => void;
  readonly steps: readonly ReconcileStep[];
  /** This operator instance, as named in the Events it records. */
  readonly instance: string;
  readonly logger: Logger;
  readonly now?: () => Date;
  /** The operator's RUNBOOK_BASE_URL (ending in /): the provisioned alert rules link their runbooks there. */
  readonly runbookBaseUrl?: string;
  /** How many migration Jobs, and how many key rewrap Jobs, each Shop keeps; DEFAULT_JOB_HISTORY_LIMIT unless given. */
  readonly jobHistoryLimit?: number;
  /** Told each Shop's phase once its status is written, and undefined once the Shop is gone. */
  readonly onPhase?: (key: string, phase: Phase | undefined) => void;
  /** When a pod that does not run counts as failed; CRASH_LOOP_RESTARTS and DEFAULT_POD_START_TIMEOUT_MS unless given. */
  readonly failureThresholds?: FailureThresholds;
  /** Told each Shop's status once a pass worked it out (and wrote it when it changed), and undefined once the Shop is gone. */
  readonly onStatus?: (key: string, status: ShopStatus | undefined) => void;
  /** Paces the Shops an upgraded operator renders differently; unpaced when undefined. */
  readonly rolloutGate?: RolloutGate;
}

/**
 * One pass over one Shop: run the steps until one halts, then write the status they add up to and
 * record an Event per transition. Everything is read from the cluster; what is kept between passes
 * (renders, what was last applied) only saves work, so any instance can pick up where another stopped.
 */
export async function reconcileShop(key: string, options: ReconcilerOptions): Promise<PassOutcome | undefined> {
  const shop = await readShop(options.clients, parseShopKey(key));
  // A deleted Shop's objects go with it: they all carry its ownerReference.
  if (!shop || shop.metadata.deletionTimestamp) {
    options.renders.forget(key);
    options.lastApplied.forget(key);
    options.onStatus?.(key, undefined);
    return undefined;
  }
  const turnInMs = waitForTurn(key, shop, options);
  if (turnInMs !== undefined) return { requeueAfterMs: turnInMs };

  const now = (options.now ?? (() => new Date()))();
  const result = await runSteps(shop, options, now);
  const { halt } = result;
  const phase: Phase = halt?.phase ?? 'Ready';
  const tag = shop.spec.image.tag;
  const readyMessage = `the api, worker and consumer of ${tag} are available`;
  const status = nextStatus(
    shop.status,
    {
      generation: shop.metadata.generation,
      phase,
      message: halt?.message ?? readyMessage,
      migratedVersion: result.migratedVersion,
      migratedDigest: result.migratedDigest,
      seededAt: result.seededAt,
      keyRotation: result.keyRotation,
      renderHash: result.renderHash,
      conditions: conditionsOf(result, options.steps, readyMessage),
    },
    now,
  );

  if (statusChanged(shop.status, status)) {
    try {
      await writeStatus(options.clients, shop, status);
    } catch (error) {
      if (isConflict(error)) return { requeueAfterMs: 0 }; // the Shop changed during the pass: look again
      throw error;
    }
    const found = transitions(shop.status, status);
    if (status.phase !== shop.status?.phase)
      options.logger.info({ shop: key, phase: status.phase, message: status.message }, 'phase changed');
    await recordEvents(options.clients, shop, found, options.instance).catch((error: unknown) =>
      options.logger.warn({ shop: key, error: describeError(error) }, 'could not record events'),
    );
  }
  options.onStatus?.(key, status);
  if (result.rejected !== undefined) throw result.rejected; // retried with backoff; the status says why
  const requeueAfterMs = Math.min(halt?.requeueAfterMs ?? Infinity, result.requeueAfterMs ?? Infinity);
  return requeueAfterMs === Infinity ? undefined : { requeueAfterMs };
}

/**
 * How long the Shop waits for its turn to roll out a render that changed with the operator (the rollout
 * gate); undefined when it goes on now. A spec the renderer refuses is left to the steps, which say so;
 * a paused Shop takes no turn, as its pass changes nothing.
 */
function waitForTurn(key: string, shop: StoredShop, options: ReconcilerOptions): number | undefined {
  if (!options.rolloutGate || shop.spec.paused === true) return undefined;
  let hash: string;
  try {
    hash = renderHash(options.renders.render(shop));
  } catch {
    return undefined;
  }
  if (!renderChangedByOperator(shop, hash)) return undefined;
  const admission = options.rolloutGate.admit(key);
  if (admission.admitted) return undefined;
  options.logger.debug(
    { shop: key, retryAfterMs: admission.retryAfterMs },
    'the operator renders this Shop differently; it rolls out when its turn comes',
  );
  return admission.retryAfterMs;
}

async function readShop(clients: KubeClients, { namespace, name }: ShopKey): Promise<StoredShop | undefined> {
  let shop: Shop;
  try {
    shop = (await clients.customObjects.getNamespacedCustomObject({
      group: SHOP_API.group,
      version: SHOP_API.version,
      plural: SHOP_API.plural,
      namespace,
      name,
    })) as Shop;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
  if (!isStoredShop(shop)) throw new Error(`the API server returned Shop ${namespace}/${name} without its metadata`);
  return shop;
}

interface StepsResult {
  readonly halt?: Halt;
  readonly reports: ReadonlyMap<StepConditionType, ConditionReport>;
  readonly migratedVersion: string | undefined;
  readonly migratedDigest?: string;
  readonly seededAt?: string;
  readonly keyRotation?: Pass['keyRotation'];
  /** Of the manifests this pass rendered; the status' as it was when the spec cannot be rendered. */
  readonly renderHash: string | undefined;
  /** The steps asked to look again after this long. */
  readonly requeueAfterMs?: number;
  /**
   * The API server refused a write, or an object read is invalid: the pass is Failed, and retried with
   * backoff in case the cause goes away (RBAC fixed, an unwatched Secret repaired).
   */
  readonly rejected?: unknown;
}

async function runSteps(shop: StoredShop, options: ReconcilerOptions, now: Date): Promise<StepsResult> {
  const reports = new Map<StepConditionType, ConditionReport>();
  let requeueAfterMs: number | undefined;
  let manifests: Pass['manifests'];
  let rendered: ShopManifests;
  try {
    rendered = options.renders.render(shop);
    manifests = ownedManifests(shop, rendered);
  } catch (error) {
    const { migratedVersion, migratedDigest, seededAt, keyRotation } = shop.status ?? {};
    const halt: Halt = { phase: 'Failed', reason: 'InvalidSpec', message: describeError(error) };
    return { halt, reports, migratedVersion, migratedDigest, seededAt, keyRotation, renderHash: shop.status?.renderHash };
  }
  let monitoringKinds: Promise<ReadonlySet<string>> | undefined;
  const pass: Pass = {
    shop,
    manifests,
    clients: options.clients,
    now,
    runbookBaseUrl: options.runbookBaseUrl,
    failureThresholds: options.failureThresholds ?? DEFAULT_FAILURE_THRESHOLDS,
    migratedVersion: shop.status?.migratedVersion,
    migratedDigest: shop.status?.migratedDigest,
    seededAt: shop.status?.seededAt,
    generatedKeys: undefined,
    referencedSecrets: new Map(),
    // Kept as it was until the generated-keys step reads the Secret: a pass that fails before leaves it alone.
    keyRotation: shop.status?.keyRotation,
    provisioned: [],
    jobHistoryLimit: options.jobHistoryLimit ?? DEFAULT_JOB_HISTORY_LIMIT,
    servedMonitoringKinds: () =>
      (monitoringKinds ??= servedKinds(options.clients.customObjects, MONITORING_API_VERSION).then((served) => {
        options.watchCache.watchMonitoringKinds(served);
        return served;
      })),
    cached: (object) => options.watchCache.cached(object),
    lastApplied: options.lastApplied.of(shopKey(shop.metadata.namespace, shop.metadata.name)),
    countMonitoringApply: (result) => options.onMonitoringApply?.(result),
    report: (type, report) => void reports.set(type, report),
    requeueAfter: (ms) => void (requeueAfterMs = Math.min(ms, requeueAfterMs ?? ms)),
  };
  const outcome = (
    rest: Omit<
      StepsResult,
      'reports' | 'migratedVersion' | 'migratedDigest' | 'seededAt' | 'keyRotation' | 'renderHash' | 'requeueAfterMs'
    >,
  ): StepsResult => ({
    ...rest,
    reports,
    renderHash: renderHash(rendered),
    migratedVersion: pass.migratedVersion,
    migratedDigest: pass.migratedDigest,
    seededAt: pass.seededAt,
    keyRotation: pass.keyRotation,
    ...(requeueAfterMs === undefined ? {} : { requeueAfterMs }),
  });
  for (const step of options.steps) {
    let halt: Halt | undefined;
    try {
      halt = await step.run(pass);
    } catch (error) {
      const invalid = error instanceof InvalidObjectError;
      if (!invalid && !isRejected(error)) throw error; // transient: retried with backoff, the status stays as it was
      const message = `${step.name}: ${describeError(error)}`;
      return outcome({ halt: { phase: 'Failed', reason: invalid ? 'InvalidObject' : 'ApplyRejected', message }, rejected: error });
    }
    if (halt) return outcome({ halt });
  }
  return outcome({});
}

const NOT_DEGRADED: ConditionReport = { status: 'False', reason: 'NoFailure', message: 'the steps this pass reached found nothing failed' };

/**
 * Each step's own reports; the conditions of steps the pass did not reach take the halt's reason;
 * Ready sums up, and Degraded is True with a halt that is a failure rather than a wait.
 */
function conditionsOf(result: StepsResult, steps: readonly ReconcileStep[], readyMessage: string): Map<ConditionType, ConditionReport> {
  const { halt } = result;
  const halted: ConditionReport | undefined = halt && { status: 'False', reason: halt.reason, message: halt.message };
  const failed = halt?.phase === 'Degraded' || halt?.phase === 'Failed';
  const conditions = new Map<ConditionType, ConditionReport>([
    ['Ready', halted ?? { status: 'True', reason: 'Ready', message: readyMessage }],
    ['Degraded', failed ? { status: 'True', reason: halt.reason, message: halt.message } : NOT_DEGRADED],
  ]);
  for (const type of steps.flatMap((step) => step.conditions)) {
    const report = result.reports.get(type) ?? halted;
    if (report) conditions.set(type, report);
  }
  return conditions;
}
