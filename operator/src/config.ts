import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { ConfigError, EnvReader, LOG_LEVELS, type LogLevel } from '@shop/runtime';
import { DEFAULT_LEASE_TIMINGS, type LeaseTimings } from './leader-election.ts';
import { DEFAULT_POD_START_TIMEOUT_MS } from './kube/pod-failures.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS } from './kube/request-deadline.ts';
import { DEFAULT_PASS_TIMEOUT_MS, DEFAULT_RESYNC_MS } from './operator.ts';
import { DEFAULT_JOB_HISTORY_LIMIT } from './reconcile/reconciler.ts';
import { DEFAULT_ROLLOUT_PACE, type RolloutPace } from './reconcile/rollout-gate.ts';

/** The operator's settings, from environment variables. */
export interface OperatorConfig {
  /** A kubeconfig file; undefined inside a cluster (the pod's service account). */
  readonly kubeconfigPath: string | undefined;
  /** Reconcile the Shops of this namespace only; all namespaces when undefined. */
  readonly watchNamespace: string | undefined;
  /** Watch Secrets in these namespaces only (the chart's rbac.secretNamespaces); where the Shops are when undefined. */
  readonly secretNamespaces: readonly string[] | undefined;
  readonly metricsPort: number;
  /** The Lease to elect a leader on; undefined when LEADER_ELECTION=false. */
  readonly leaderElection: { readonly namespace: string; readonly name: string; readonly timings: LeaseTimings } | undefined;
  readonly resyncMs: number;
  readonly logLevel: LogLevel;
  /** This process, as the Lease holder and in Events. */
  readonly identity: string;
  /** Where the repository's files are served, ending in /: the provisioned alert rules link their runbooks there. */
  readonly runbookBaseUrl: string | undefined;
  /** How many migration Jobs, and how many key rewrap Jobs, each Shop keeps. */
  readonly jobHistoryLimit: number;
  /** How long a pod may stay Pending before the Shop is Degraded. */
  readonly podStartTimeoutMs: number;
  /** How many Shops an upgraded operator that renders them differently rolls per interval. */
  readonly rolloutPace: RolloutPace;
  /** How long one API request may take, its answer included. */
  readonly requestTimeoutMs: number;
  /** How long one reconcile pass may take before its requests are aborted. */
  readonly passTimeoutMs: number;
}

/** What the configuration reads besides the environment, replaceable in tests. */
export interface ConfigSources {
  readonly fileExists: (path: string) => boolean;
  /** The namespace of the pod's service account, when running in a cluster. */
  readonly podNamespace: () => string | undefined;
  readonly hostname: () => string;
}

const SERVICE_ACCOUNT_NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

export const systemSources: ConfigSources = {
  fileExists: existsSync,
  podNamespace: () =>
    existsSync(SERVICE_ACCOUNT_NAMESPACE_FILE) ? readFileSync(SERVICE_ACCOUNT_NAMESPACE_FILE, 'utf8').trim() : undefined,
  hostname,
};

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Reads every variable and throws one ConfigError listing each problem, one per variable. */
export function loadConfig(env: NodeJS.ProcessEnv, sources: ConfigSources = systemSources): OperatorConfig {
  const read = new EnvReader(env);
  const name = (variable: string, pattern: RegExp, what: string): string | undefined => {
    const value = read.optional(variable);
    if (value === undefined || (pattern.test(value) && value.length <= 253)) return value;
    return void read.problem(variable, `must be ${what} (got "${value}")`);
  };

  const kubeconfigPath = read.optional('KUBECONFIG');
  if (kubeconfigPath !== undefined && !sources.fileExists(kubeconfigPath)) read.problem('KUBECONFIG', `no such file: ${kubeconfigPath}`);
  if (kubeconfigPath === undefined && read.optional('KUBERNETES_SERVICE_HOST') === undefined) {
    read.problem('KUBECONFIG', 'is required outside a cluster (KUBERNETES_SERVICE_HOST is not set)');
  }
  const watchNamespace = name('WATCH_NAMESPACE', DNS_LABEL, 'a namespace name');
  const secretNamespaces = read
    .optional('SECRET_NAMESPACES')
    ?.split(',')
    .map((namespace) => namespace.trim());
  if (secretNamespaces?.some((namespace) => !DNS_LABEL.test(namespace)))
    read.problem('SECRET_NAMESPACES', `must be namespace names separated by commas (got "${secretNamespaces.join(',')}")`);
  else if (secretNamespaces && watchNamespace)
    read.problem('SECRET_NAMESPACES', 'is for an operator of all namespaces: with WATCH_NAMESPACE, Secrets are watched there only');
  const metricsPort = read.integer('METRICS_PORT', 8081, 0, 65_535);
  const resyncMs = read.integer('RESYNC_SECONDS', DEFAULT_RESYNC_MS / 1000, 1, 86_400) * 1000;
  const logLevel = read.oneOf<LogLevel>('LOG_LEVEL', LOG_LEVELS, 'INFO', (value) => value.toUpperCase());
  const runbookBase = read.url('RUNBOOK_BASE_URL', ['https', 'http']);
  const jobHistoryLimit = read.integer('JOB_HISTORY_LIMIT', DEFAULT_JOB_HISTORY_LIMIT, 1, 100);
  const podStartTimeoutMs = read.integer('POD_START_TIMEOUT_SECONDS', DEFAULT_POD_START_TIMEOUT_MS / 1000, 1, 86_400) * 1000;
  const rolloutPace: RolloutPace = {
    batchSize: read.integer('ROLLOUT_BATCH_SIZE', DEFAULT_ROLLOUT_PACE.batchSize, 1, 10_000),
    intervalMs: read.integer('ROLLOUT_INTERVAL_SECONDS', DEFAULT_ROLLOUT_PACE.intervalMs / 1000, 0, 86_400) * 1000,
  };
  const requestTimeoutMs = read.integer('API_REQUEST_TIMEOUT_SECONDS', DEFAULT_REQUEST_TIMEOUT_MS / 1000, 1, 600) * 1000;
  const passTimeoutMs = read.integer('PASS_TIMEOUT_SECONDS', DEFAULT_PASS_TIMEOUT_MS / 1000, 1, 3_600) * 1000;
  if (passTimeoutMs <= requestTimeoutMs)
    read.problem('PASS_TIMEOUT_SECONDS', `must be more than API_REQUEST_TIMEOUT_SECONDS (${requestTimeoutMs / 1000})`);

  let leaderElection: OperatorConfig['leaderElection'];
  const election = read.optional('LEADER_ELECTION') ?? 'true';
  if (election !== 'true' && election !== 'false') read.problem('LEADER_ELECTION', `must be true or false (got "${election}")`);
  if (election !== 'false') {
    const leaseName = name('LEASE_NAME', DNS_SUBDOMAIN, 'a Lease name') ?? 'shop-operator';
    const leaseNamespace =
      name('LEASE_NAMESPACE', DNS_LABEL, 'a namespace name') ?? read.optional('POD_NAMESPACE') ?? sources.podNamespace();
    const seconds = (variable: string, fallbackMs: number, min: number) => read.integer(variable, fallbackMs / 1000, min, 3_600) * 1000;
    const timings: LeaseTimings = {
      leaseDurationMs: seconds('LEASE_DURATION_SECONDS', DEFAULT_LEASE_TIMINGS.leaseDurationMs, 2),
      renewDeadlineMs: seconds('LEASE_RENEW_DEADLINE_SECONDS', DEFAULT_LEASE_TIMINGS.renewDeadlineMs, 1),
      retryPeriodMs: seconds('LEASE_RETRY_PERIOD_SECONDS', DEFAULT_LEASE_TIMINGS.retryPeriodMs, 1),
    };
    if (timings.renewDeadlineMs >= timings.leaseDurationMs)
      read.problem('LEASE_RENEW_DEADLINE_SECONDS', 'must be less than LEASE_DURATION_SECONDS');
    // A renewal starts a retry period after the last one and must be answered before the deadline.
    else if (timings.renewDeadlineMs <= timings.retryPeriodMs)
      read.problem('LEASE_RENEW_DEADLINE_SECONDS', 'must be more than LEASE_RETRY_PERIOD_SECONDS');
    if (leaseNamespace === undefined)
      read.problem('LEASE_NAMESPACE', 'is required with LEADER_ELECTION=true outside a cluster (or set POD_NAMESPACE)');
    else leaderElection = { namespace: leaseNamespace, name: leaseName, timings };
  }

  if (read.problems.length > 0) throw new ConfigError(read.problems);
  return {
    kubeconfigPath,
    watchNamespace,
    secretNamespaces,
    metricsPort,
    leaderElection,
    resyncMs,
    logLevel,
    identity: read.optional('POD_NAME') ?? `${sources.hostname()}-${randomBytes(4).toString('hex')}`,
    // A base without its trailing / would lose its last segment to the runbook's path.
    runbookBaseUrl: runbookBase === undefined || runbookBase.endsWith('/') ? runbookBase : `${runbookBase}/`,
    jobHistoryLimit,
    podStartTimeoutMs,
    rolloutPace,
    requestTimeoutMs,
    passTimeoutMs,
  };
}
