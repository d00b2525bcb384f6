// Where provisioned servers live. Shared by provision.ts (writes) and servers.ts (reads).
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const PROVISION_COMMAND = 'node test/infra/provision.ts';

export const POSTGRES_MAJOR = 15;
export const KAFKA_VERSION = '3.9.1';
export const SCALA_VERSION = '2.13';
// The SLF4J binding Kafka 3.9 itself ships with (slf4j 1.7.x + reload4j).
export const SLF4J_RELOAD4J_VERSION = '1.7.36';

// Kubernetes pieces, built from source with Go (see provision.ts). 1.37 is the newest Kubernetes minor on
// the module proxy; Helm 3.22 (newest 3.x) and kine 0.17.5 (newest) are both built against its 0.37 libraries.
export const KUBERNETES_VERSION = '1.37.2';
export const KINE_VERSION = '0.17.5';
export const HELM_VERSION = '3.22.0';
/** The Temporal CLI whose dev server the workflow tests run (it supports Schedules); 1.6+ carry a replace directive `go install` refuses. */
export const TEMPORAL_CLI_VERSION = '1.5.1';
/** Temporal's time-skipping test server (Java, from Maven Central), for the workflow tests that wait out a timer. */
export const TEMPORAL_TEST_SERVER_VERSION = '1.38.0';
/** slf4j-nop for the slf4j-api 1.7.36 the test server depends on: without a binding it prints a warning at each start. */
export const TEMPORAL_TEST_SERVER_SLF4J_VERSION = '1.7.36';
/** The highest `go` line among the go.mod files (kine 0.17.5 needs 1.26.5). */
export const GO_MIN_VERSION = '1.26.5';
/** The exporters SREs run next to PostgreSQL and Redis; newer tags are refused by the module proxy's version list. */
export const POSTGRES_EXPORTER_VERSION = '0.17.1';
export const REDIS_EXPORTER_VERSION = '1.74.0';
/** The Prometheus Operator whose CRDs (PrometheusRule, PodMonitor, ...) tests install on the API server. */
export const PROMETHEUS_OPERATOR_VERSION = '0.85.0';
/** Debian bookworm's `prometheus` package: the server and promtool (the alert rule tests). */
export const PROMETHEUS_VERSION = '2.42.0';
/** The S3-compatible object store the file storage tests run against (Apache-2.0; the only version the module proxy lists). */
export const VERSITYGW_VERSION = '1.8.0';

export const postgresBinDir = `/usr/lib/postgresql/${POSTGRES_MAJOR}/bin`;
export const redisServerBin = '/usr/bin/redis-server';

/** Read on every call so a test or script can point SHOP_INFRA_CACHE elsewhere. */
export function cacheDir(): string {
  return process.env.SHOP_INFRA_CACHE ?? join(homedir(), '.cache', 'shop-infra');
}

export function kafkaDir(): string {
  return join(cacheDir(), `kafka-${KAFKA_VERSION}`);
}

export function kafkaLibsDir(): string {
  return join(kafkaDir(), 'libs');
}

/** Written last by provision.ts: its presence means the libs folder is complete. */
export function kafkaMarker(): string {
  return join(kafkaDir(), '.provisioned');
}

export function isPostgresInstalled(): boolean {
  return existsSync(join(postgresBinDir, 'postgres')) && existsSync(join(postgresBinDir, 'initdb'));
}

export function isRedisInstalled(): boolean {
  return existsSync(redisServerBin);
}

export function isKafkaProvisioned(): boolean {
  return existsSync(kafkaMarker());
}

/** One folder per Go-built tool and version: `<cache>/<name>-<version>/bin/<binary>` plus its `.provisioned` marker. */
export interface GoTool {
  readonly label: string;
  readonly dir: string;
  readonly binary: string;
  /** Written last by provision.ts: its presence means the binary is complete and answered --version. */
  readonly marker: string;
}

function goTool(label: string, name: string, version: string, binaryName: string): GoTool {
  const dir = join(cacheDir(), `${name}-${version}`);
  return { label, dir, binary: join(dir, 'bin', binaryName), marker: join(dir, '.provisioned') };
}

export function kubeApiServerTool(): GoTool {
  return goTool(`kube-apiserver ${KUBERNETES_VERSION}`, 'kubernetes', KUBERNETES_VERSION, 'kube-apiserver');
}

/** The Deployment, ReplicaSet, Job, garbage collector, namespace and quota controllers the tests run beside the API server. */
export function kubeControllerManagerTool(): GoTool {
  return goTool(`kube-controller-manager ${KUBERNETES_VERSION}`, 'kube-controller-manager', KUBERNETES_VERSION, 'kube-controller-manager');
}

export function kubeSchedulerTool(): GoTool {
  return goTool(`kube-scheduler ${KUBERNETES_VERSION}`, 'kube-scheduler', KUBERNETES_VERSION, 'kube-scheduler');
}

export function kineTool(): GoTool {
  return goTool(`kine ${KINE_VERSION}`, 'kine', KINE_VERSION, 'kine');
}

export function helmTool(): GoTool {
  return goTool(`Helm ${HELM_VERSION}`, 'helm', HELM_VERSION, 'helm');
}

export function temporalCliTool(): GoTool {
  return goTool(`Temporal CLI ${TEMPORAL_CLI_VERSION}`, 'temporal-cli', TEMPORAL_CLI_VERSION, 'temporal');
}

export function postgresExporterTool(): GoTool {
  return goTool(`postgres_exporter ${POSTGRES_EXPORTER_VERSION}`, 'postgres-exporter', POSTGRES_EXPORTER_VERSION, 'postgres_exporter');
}

export function redisExporterTool(): GoTool {
  return goTool(`redis_exporter ${REDIS_EXPORTER_VERSION}`, 'redis-exporter', REDIS_EXPORTER_VERSION, 'redis_exporter');
}

export function versityGwTool(): GoTool {
  return goTool(`versitygw ${VERSITYGW_VERSION}`, 'versitygw', VERSITYGW_VERSION, 'versitygw');
}

export function isToolProvisioned(tool: GoTool): boolean {
  return existsSync(tool.marker) && existsSync(tool.binary);
}

/** A Debian package unpacked into the cache with `apt-get download` and `dpkg-deb -x`: no root, nothing installed system-wide. */
export interface UnpackedDebianPackage {
  readonly label: string;
  readonly aptPackage: string;
  /** Upstream version its binaries must report, e.g. 2.42.0 for 2.42.0+ds-5+deb12u1. */
  readonly version: string;
  readonly dir: string;
  /** The package's files as they would be installed: `<root>/usr/bin/...`. */
  readonly root: string;
  /** Written last by provision.ts: its presence means the package is unpacked and its binary answered --version. */
  readonly marker: string;
}

export function prometheusPackage(): UnpackedDebianPackage {
  const dir = join(cacheDir(), `prometheus-${PROMETHEUS_VERSION}`);
  return {
    label: `Prometheus ${PROMETHEUS_VERSION} (server and promtool)`,
    aptPackage: 'prometheus',
    version: PROMETHEUS_VERSION,
    dir,
    root: join(dir, 'root'),
    marker: join(dir, '.provisioned'),
  };
}

export function prometheusBin(): string {
  return join(prometheusPackage().root, 'usr', 'bin', 'prometheus');
}

export function promtoolBin(): string {
  return join(prometheusPackage().root, 'usr', 'bin', 'promtool');
}

export function isPrometheusProvisioned(): boolean {
  return existsSync(prometheusPackage().marker) && existsSync(promtoolBin()) && existsSync(prometheusBin());
}

/** The Prometheus Operator's CRD manifests, copied out of its Go module: `<dir>/monitoring.coreos.com_<plural>.yaml`. */
export function prometheusOperatorCrdsDir(): string {
  return join(cacheDir(), `prometheus-operator-crds-${PROMETHEUS_OPERATOR_VERSION}`);
}

export function prometheusOperatorCrdsMarker(): string {
  return join(prometheusOperatorCrdsDir(), '.provisioned');
}

/** Schemathesis from PyPI, in a Python venv of its own: the api fuzz test (test/fuzz). */
export const SCHEMATHESIS_VERSION = '4.32.5';

export interface PythonTool {
  readonly label: string;
  readonly dir: string;
  readonly venv: string;
  readonly binary: string;
  /** Written last by provision.ts: its presence means the venv is complete and the binary answered --version. */
  readonly marker: string;
}

export function schemathesisTool(): PythonTool {
  const dir = join(cacheDir(), `schemathesis-${SCHEMATHESIS_VERSION}`);
  const venv = join(dir, 'venv');
  return { label: `Schemathesis ${SCHEMATHESIS_VERSION}`, dir, venv, binary: join(venv, 'bin', 'st'), marker: join(dir, '.provisioned') };
}

export function isPythonToolProvisioned(tool: PythonTool): boolean {
  return existsSync(tool.marker) && existsSync(tool.binary);
}

/**
 * The time-skipping test server: its jars, the script that runs it (the executable the SDK's
 * `TestWorkflowEnvironment.createTimeSkipping` starts with the port as its argument) and its
 * class-data archive. `TEMPORAL_TEST_SERVER_BIN` names an executable of one's own instead.
 */
export interface TemporalTestServer {
  readonly label: string;
  readonly dir: string;
  readonly libs: string;
  readonly script: string;
  readonly classArchive: string;
  /** Written last by provision.ts: its presence means the jars, the archive and the script are complete. */
  readonly marker: string;
}

export function temporalTestServer(): TemporalTestServer {
  const dir = join(cacheDir(), `temporal-test-server-${TEMPORAL_TEST_SERVER_VERSION}`);
  return {
    label: `Temporal test server ${TEMPORAL_TEST_SERVER_VERSION}`,
    dir,
    libs: join(dir, 'libs'),
    script: join(dir, 'bin', 'temporal-test-server'),
    classArchive: join(dir, 'classes.jsa'),
    marker: join(dir, '.provisioned'),
  };
}

export function isTemporalTestServerProvisioned(): boolean {
  const server = temporalTestServer();
  return existsSync(server.marker) && existsSync(server.script);
}
