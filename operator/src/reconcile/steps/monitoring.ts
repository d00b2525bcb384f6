import { sha256Hex, type KubeObject } from '@shop/cdk8s';
import { apply } from '../../kube/apply.ts';
import { describeError, isRejected } from '../../kube/errors.ts';
import { ownedBy } from '../../kube/ownership.ts';
import { dashboardConfigMaps } from '../../monitoring/dashboard-config-maps.ts';
import { generatedDashboards } from '../../monitoring/monitoring-files.ts';
import { podMonitor, podMonitorName } from '../../monitoring/pod-monitor.ts';
import { MONITORING_API_VERSION, prometheusRule, prometheusRuleName } from '../../monitoring/prometheus-rule.ts';
import type { StoredShop } from '../../shop-resource.ts';
import type { ConditionReport } from '../conditions.ts';
import type { Pass, ReconcileStep } from '../pass.ts';

/** One switch of spec.monitoring and the objects it provisions. */
interface MonitoringPart {
  /** As named in the condition's message. */
  readonly description: string;
  readonly wanted: boolean;
  /** Built only when wanted: the dashboards are large. */
  objects(): readonly KubeObject[];
  /** A kind of the Prometheus Operator's CRDs, which the cluster may not serve. */
  readonly operatorKind?: string;
}

const DISABLED: ConditionReport = {
  status: 'False',
  reason: 'Disabled',
  message: 'spec.monitoring enables no dashboards, alert rules or PodMonitor',
};

/**
 * The Shop's dashboards, alert rules and PodMonitor, as spec.monitoring asks; what is turned off is
 * pruned (the prune step). Never halts: a Shop in a cluster without the Prometheus Operator still runs, and
 * MonitoringProvisioned says what is missing.
 */
export const monitoring: ReconcileStep = {
  name: 'monitoring',
  conditions: ['MonitoringProvisioned'],
  async run(pass) {
    pass.report('MonitoringProvisioned', await provision(pass).catch(refusedMonitoring));
    return undefined;
  },
};

/** The API server refused the discovery request: reported, and the Shop runs on. Transient errors are retried. */
function refusedMonitoring(error: unknown): ConditionReport {
  if (!isRejected(error)) throw error;
  return {
    status: 'False',
    reason: 'ApplyRejected',
    message: `the API server refused the monitoring API's discovery: ${describeError(error)}`,
  };
}

/** On each monitoring object: a hash of it as rendered, to tell whether the stored one is of the same content. */
const CONTENT_HASH_ANNOTATION = 'shop.dev/content-hash';

/**
 * Applies each object that changed; one the API server refuses (RBAC of an older chart, an admission
 * webhook) does not keep the others from being applied. Resolves with what each refused one was told.
 */
async function applyEach(pass: Pass, objects: readonly KubeObject[]): Promise<string[]> {
  const refused: string[] = [];
  for (const object of objects) {
    try {
      pass.countMonitoringApply(await applyChanged(pass, object));
    } catch (error) {
      if (!isRejected(error)) throw error;
      refused.push(`${object.kind} ${object.metadata.name}: ${describeError(error)}`);
      pass.countMonitoringApply('refused');
    }
  }
  return refused;
}

/**
 * Applies the object unless the watch cache holds it with the same content hash and the very
 * resourceVersion this instance's last apply of it returned: then nobody changed or deleted it since
 * (their change would be a newer version), and the apply would change nothing.
 */
async function applyChanged(pass: Pass, object: KubeObject): Promise<'applied' | 'unchanged'> {
  const key = `${object.kind}/${object.metadata.name}`;
  const stored = pass.cached(object)?.metadata;
  const sameContent = stored?.annotations?.[CONTENT_HASH_ANNOTATION] === object.metadata.annotations?.[CONTENT_HASH_ANNOTATION];
  if (stored && sameContent && stored.resourceVersion === pass.lastApplied.get(key)) return 'unchanged';
  const { metadata } = await apply(pass.clients.objects, object);
  if (metadata?.resourceVersion) pass.lastApplied.set(key, metadata.resourceVersion);
  return 'applied';
}

/** The rendered object annotated with its content hash, then owned by the Shop. */
function hashedAndOwned(shop: StoredShop, object: KubeObject): KubeObject {
  const annotations = { ...object.metadata.annotations, [CONTENT_HASH_ANNOTATION]: sha256Hex(JSON.stringify(object), 16) };
  return ownedBy(shop, { ...object, metadata: { ...object.metadata, annotations } });
}

function monitoringParts(shop: StoredShop, runbookBaseUrl: string | undefined): MonitoringPart[] {
  const settings = shop.spec.monitoring;
  return [
    {
      description: `${generatedDashboards().length} dashboard ConfigMaps`,
      wanted: settings?.dashboards?.enabled === true,
      objects: () => dashboardConfigMaps(shop),
    },
    {
      description: `PrometheusRule ${prometheusRuleName(shop)}`,
      wanted: settings?.alerts?.enabled === true,
      objects: () => [prometheusRule(shop, runbookBaseUrl)],
      operatorKind: 'PrometheusRule',
    },
    {
      description: `PodMonitor ${podMonitorName(shop)}`,
      wanted: settings?.podMonitors?.enabled === true,
      objects: () => [podMonitor(shop)],
      operatorKind: 'PodMonitor',
    },
  ];
}

async function provision(pass: Pass): Promise<ConditionReport> {
  const { shop, runbookBaseUrl } = pass;
  const wanted = monitoringParts(shop, runbookBaseUrl).filter((part) => part.wanted);
  if (wanted.length === 0) return DISABLED;

  const served = await pass.servedMonitoringKinds();
  const unserved = wanted.filter((part) => part.operatorKind !== undefined && !served.has(part.operatorKind));
  const objects = wanted
    .filter((part) => !unserved.includes(part))
    .flatMap((part) => part.objects().map((object) => hashedAndOwned(shop, object)));
  // Listed before the first apply: one refused must not get the others pruned.
  pass.provisioned.push(...objects);
  const refused = await applyEach(pass, objects);
  if (refused.length > 0) {
    const message = `the API server refused ${refused.length} of ${objects.length} monitoring objects (the others are applied): ${refused.join('; ')}`;
    return { status: 'False', reason: 'ApplyRejected', message };
  }

  const provisioned = `provisioned: ${describe(wanted.filter((part) => !unserved.includes(part))) || 'nothing'}`;
  if (unserved.length === 0) return { status: 'True', reason: 'Provisioned', message: provisioned };
  return {
    status: 'False',
    reason: 'CRDNotInstalled',
    message: `the API server does not serve ${MONITORING_API_VERSION} ${unserved.map((part) => part.operatorKind).join(', ')} (the Prometheus Operator's CRDs are not installed), so ${describe(unserved)} cannot be provisioned; ${provisioned}`,
  };
}

const describe = (parts: readonly MonitoringPart[]): string => parts.map((part) => part.description).join(', ');
