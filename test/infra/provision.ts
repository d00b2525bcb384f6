// Installs what the real-server tests need. Idempotent: `node test/infra/provision.ts`.
// PostgreSQL, Redis, Java and Maven come from Debian; Prometheus is unpacked from its Debian package into the
// cache; Kafka's and the Temporal test server's jars from Maven Central into the cache;
// the Temporal CLI, kube-apiserver, kube-controller-manager, kube-scheduler, kine, Helm, the exporters and versitygw are built from source with Go (modules
// from the Go module proxy);
// Schemathesis comes from PyPI into a venv in the cache.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  GO_MIN_VERSION,
  HELM_VERSION,
  KAFKA_VERSION,
  KINE_VERSION,
  KUBERNETES_VERSION,
  POSTGRES_EXPORTER_VERSION,
  POSTGRES_MAJOR,
  PROMETHEUS_OPERATOR_VERSION,
  prometheusOperatorCrdsDir,
  prometheusOperatorCrdsMarker,
  REDIS_EXPORTER_VERSION,
  SCHEMATHESIS_VERSION,
  isPythonToolProvisioned,
  schemathesisTool,
  prometheusPackage,
  promtoolBin,
  type UnpackedDebianPackage,
  SCALA_VERSION,
  SLF4J_RELOAD4J_VERSION,
  TEMPORAL_CLI_VERSION,
  TEMPORAL_TEST_SERVER_SLF4J_VERSION,
  TEMPORAL_TEST_SERVER_VERSION,
  isTemporalTestServerProvisioned,
  temporalTestServer,
  VERSITYGW_VERSION,
  versityGwTool,
  helmTool,
  isKafkaProvisioned,
  isToolProvisioned,
  kineTool,
  kubeApiServerTool,
  kubeControllerManagerTool,
  kubeSchedulerTool,
  postgresExporterTool,
  redisExporterTool,
  temporalCliTool,
  type GoTool,
  isPostgresInstalled,
  isRedisInstalled,
  kafkaDir,
  kafkaLibsDir,
  kafkaMarker,
  postgresBinDir,
  redisServerBin,
} from './layout.ts';
import { kafkaClassArchive, startKafkaWithJvmFlags } from './kafka.ts';
import { startTemporalTestServer, testServerJvmArgs } from './temporal-test-server.ts';
import { findOnPath, run } from './proc.ts';

interface SystemRequirement {
  label: string;
  aptPackage: string;
  location: () => string | undefined;
}

const log = (line: string): void => console.log(`[provision] ${line}`);
const DEBOOTSTRAP = '/usr/sbin/debootstrap';

function pythonWithVenv(): string | undefined {
  const python = findOnPath('python3');
  if (python === undefined) return undefined;
  return spawnSync(python, ['-c', 'import ensurepip, venv'], { stdio: 'ignore' }).status === 0 ? python : undefined;
}

function systemRequirements(): SystemRequirement[] {
  const requirements: SystemRequirement[] = [
    {
      label: `PostgreSQL ${POSTGRES_MAJOR}`,
      aptPackage: `postgresql-${POSTGRES_MAJOR}`,
      location: () => (isPostgresInstalled() ? postgresBinDir : undefined),
    },
    { label: 'Redis', aptPackage: 'redis-server', location: () => (isRedisInstalled() ? redisServerBin : undefined) },
    { label: 'Java (for Kafka and the Temporal test server)', aptPackage: 'default-jre-headless', location: () => findOnPath('java') },
    // The beacon tests drive it headless through playwright-core, which downloads no browser.
    {
      label: 'Chromium (for the beacon tests)',
      aptPackage: 'chromium',
      location: () => (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined),
    },
    // The container images are built and run without a daemon (images/README.md).
    { label: 'buildah (for the container images)', aptPackage: 'buildah', location: () => findOnPath('buildah') },
    {
      label: "debootstrap (for the images' base)",
      aptPackage: 'debootstrap',
      location: () => (existsSync(DEBOOTSTRAP) ? DEBOOTSTRAP : undefined),
    },
    // The node agent gives each pod it runs a network namespace of its own (pods/pod-network.ts).
    { label: 'iproute2 (for pod networks)', aptPackage: 'iproute2', location: () => findOnPath('ip') },
    { label: 'iptables (for pod networks)', aptPackage: 'iptables', location: () => findOnPath('iptables') },
  ];
  // Python with venv and pip is only needed to install Schemathesis.
  if (!isPythonToolProvisioned(schemathesisTool())) {
    requirements.push({ label: 'Python 3 with venv (to install Schemathesis)', aptPackage: 'python3-venv', location: pythonWithVenv });
  }
  // Maven is only needed to fetch the jars.
  if (!isKafkaProvisioned() || (!ownTemporalTestServer() && !isTemporalTestServerProvisioned())) {
    requirements.push({
      label: 'Maven (to fetch Kafka and the Temporal test server)',
      aptPackage: 'maven',
      location: () => findOnPath('mvn'),
    });
  }
  return requirements;
}

async function ensureSystemPackages(): Promise<void> {
  const missing: SystemRequirement[] = [];
  for (const requirement of systemRequirements()) {
    const location = requirement.location();
    if (location) log(`${requirement.label}: ready (${location})`);
    else {
      log(`${requirement.label}: missing (Debian package ${requirement.aptPackage})`);
      missing.push(requirement);
    }
  }
  if (missing.length === 0) return;

  const packages = missing.map((r) => r.aptPackage);
  if (process.getuid?.() !== 0) {
    throw new Error(`missing ${packages.join(', ')}; run: sudo apt-get update && sudo apt-get install -y ${packages.join(' ')}`);
  }
  // RUNLEVEL=1 keeps the packages' maintainer scripts from starting system-wide services.
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive', RUNLEVEL: '1' };
  log('apt-get update');
  await run('apt-get', ['update'], { env });
  log(`apt-get install -y ${packages.join(' ')}`);
  await run('apt-get', ['install', '-y', '--no-install-recommends', ...packages], { env });
  for (const requirement of missing) {
    const location = requirement.location();
    if (!location) throw new Error(`${requirement.aptPackage} installed but ${requirement.label} still not found`);
    log(`${requirement.label}: installed (${location})`);
  }
}

interface MavenArtifact {
  groupId: string;
  artifactId: string;
  version: string;
}

/** A pom whose runtime dependencies `mvn dependency:copy-dependencies` collects. */
function runtimePom(what: string, artifactId: string, version: string, dependencies: readonly MavenArtifact[]): string {
  const dependency = (artifact: MavenArtifact): string =>
    `    <dependency><groupId>${artifact.groupId}</groupId><artifactId>${artifact.artifactId}</artifactId><version>${artifact.version}</version></dependency>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<!-- Generated by test/infra/provision.ts: ${what} for tests. -->
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.shop-infra</groupId>
  <artifactId>${artifactId}</artifactId>
  <version>${version}</version>
  <packaging>pom</packaging>
  <dependencies>
${dependencies.map(dependency).join('\n')}
  </dependencies>
  <build>
    <pluginManagement>
      <plugins>
        <plugin><artifactId>maven-dependency-plugin</artifactId><version>3.8.1</version></plugin>
      </plugins>
    </pluginManagement>
  </build>
</project>
`;
}

/** Writes the pom into `dir` and copies its runtime dependencies into `libs`; returns the jars' names, sorted. */
async function copyRuntimeDependencies(dir: string, pom: string, libs: string): Promise<string[]> {
  await writeFile(join(dir, 'pom.xml'), pom);
  await run('mvn', ['-q', '-B', 'dependency:copy-dependencies', '-DincludeScope=runtime', `-DoutputDirectory=${libs}`], { cwd: dir });
  return (await readdir(libs)).filter((file) => file.endsWith('.jar')).sort();
}

async function ensureKafka(): Promise<void> {
  const label = `Kafka ${KAFKA_VERSION}`;
  if (isKafkaProvisioned()) {
    log(`${label}: ready (${kafkaLibsDir()})`);
    return;
  }
  log(`${label}: fetching jars from Maven Central with mvn into ${kafkaLibsDir()}`);
  const dir = kafkaDir();
  // No marker means an earlier run did not finish: start from scratch.
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const pom = runtimePom(`Kafka ${KAFKA_VERSION} broker runtime`, 'kafka-runtime', KAFKA_VERSION, [
    { groupId: 'org.apache.kafka', artifactId: `kafka_${SCALA_VERSION}`, version: KAFKA_VERSION },
    { groupId: 'org.slf4j', artifactId: 'slf4j-reload4j', version: SLF4J_RELOAD4J_VERSION },
  ]);
  const jars = await copyRuntimeDependencies(dir, pom, kafkaLibsDir());
  const brokerJar = `kafka_${SCALA_VERSION}-${KAFKA_VERSION}.jar`;
  if (!jars.includes(brokerJar)) throw new Error(`mvn finished but ${brokerJar} is not in ${kafkaLibsDir()}`);
  await writeFile(kafkaMarker(), `${jars.join('\n')}\n`);
  log(`${label}: installed (${jars.length} jars)`);
}

async function ensureKafkaClassArchive(): Promise<void> {
  const label = 'Kafka class-data archive';
  const archive = await kafkaClassArchive();
  if (existsSync(archive)) {
    log(`${label}: ready (${archive})`);
    return;
  }
  log(`${label}: recording one Kafka start into ${archive}`);
  for (const file of await readdir(kafkaDir())) {
    if (file.endsWith('.jsa')) await rm(join(kafkaDir(), file)); // made by another JVM or unfinished
  }
  const partial = archive.replace(/\.jsa$/, '.partial.jsa');
  const kafka = await startKafkaWithJvmFlags([`-XX:ArchiveClassesAtExit=${partial}`]);
  await kafka.dispose(); // the JVM writes the archive as it exits
  if (!existsSync(partial)) throw new Error(`Kafka exited without writing ${partial}`);
  await rename(partial, archive);
  log(`${label}: installed`);
}

function ownTemporalTestServer(): string | undefined {
  const own = process.env.TEMPORAL_TEST_SERVER_BIN;
  return own === undefined || own === '' ? undefined : own;
}

const shellQuoted = (word: string): string => `'${word.replaceAll("'", `'\\''`)}'`;

/**
 * The jars of io.temporal:temporal-test-server (with slf4j-nop, so it prints nothing about logging), a
 * class-data archive recorded from one start (the SDK gives the server 5 s to answer; it starts in
 * about 0.4 s with the archive, 1.1 s without), and the script the SDK runs: the JVM with the port it
 * passes. The marker is written once that script has started a server that answered.
 */
async function ensureTemporalTestServer(): Promise<void> {
  const server = temporalTestServer();
  const own = ownTemporalTestServer();
  if (own !== undefined) {
    if (!existsSync(own)) throw new Error(`TEMPORAL_TEST_SERVER_BIN names ${own}, which does not exist`);
    log(`${server.label}: ready (TEMPORAL_TEST_SERVER_BIN=${own})`);
    return;
  }
  if (isTemporalTestServerProvisioned()) {
    log(`${server.label}: ready (${server.script})`);
    return;
  }
  log(`${server.label}: fetching jars from Maven Central with mvn into ${server.libs}`);
  const started = Date.now();
  // No marker means an earlier run did not finish: start from scratch.
  await rm(server.dir, { recursive: true, force: true });
  await mkdir(join(server.dir, 'bin'), { recursive: true });
  const pom = runtimePom(
    `Temporal test server ${TEMPORAL_TEST_SERVER_VERSION}`,
    'temporal-test-server-runtime',
    TEMPORAL_TEST_SERVER_VERSION,
    [
      { groupId: 'io.temporal', artifactId: 'temporal-test-server', version: TEMPORAL_TEST_SERVER_VERSION },
      { groupId: 'org.slf4j', artifactId: 'slf4j-nop', version: TEMPORAL_TEST_SERVER_SLF4J_VERSION },
    ],
  );
  const jars = await copyRuntimeDependencies(server.dir, pom, server.libs);
  const serverJar = `temporal-test-server-${TEMPORAL_TEST_SERVER_VERSION}.jar`;
  if (!jars.includes(serverJar)) throw new Error(`mvn finished but ${serverJar} is not in ${server.libs}`);

  const java = findOnPath('java');
  if (java === undefined) throw new Error('Java (to run the Temporal test server) is not on PATH');
  const partial = `${server.classArchive}.partial`;
  const recording = await startTemporalTestServer(java, testServerJvmArgs(server.libs, [`-XX:ArchiveClassesAtExit=${partial}`]));
  await recording.dispose(); // the JVM writes the archive as it exits
  if (!existsSync(partial)) throw new Error(`the Temporal test server exited without writing ${partial}`);
  await rename(partial, server.classArchive);

  const command = [java, ...testServerJvmArgs(server.libs, [`-XX:SharedArchiveFile=${server.classArchive}`])].map(shellQuoted).join(' ');
  await writeFile(
    server.script,
    `#!/bin/sh\n# Generated by test/infra/provision.ts: the Temporal test server ${TEMPORAL_TEST_SERVER_VERSION}; its argument is the port.\nexec ${command} "$@"\n`,
    { mode: 0o755 },
  );
  const check = await startTemporalTestServer(server.script, []);
  await check.dispose();
  const seconds = Math.round((Date.now() - started) / 1000);
  await writeFile(server.marker, `${jars.join('\n')}\nprovisioned in ${seconds} s with ${java}\n`);
  log(`${server.label}: installed in ${seconds} s (${jars.length} jars)`);
}

/**
 * `apt-get download` and `dpkg-deb -x` need no root and install nothing system-wide (no service, no user):
 * the package's files land under `<dir>/root`. The mirror's current build of the package is taken; its
 * binary must report the expected upstream version.
 */
async function ensureUnpackedDebianPackage(pkg: UnpackedDebianPackage, versionBinary: string): Promise<void> {
  if (existsSync(pkg.marker) && existsSync(versionBinary)) {
    log(`${pkg.label}: ready (${pkg.root})`);
    return;
  }
  log(`${pkg.label}: unpacking Debian ${pkg.aptPackage} into ${pkg.root}`);
  // No marker means an earlier run did not finish: start from scratch.
  await rm(pkg.dir, { recursive: true, force: true });
  const downloads = join(pkg.dir, 'deb');
  await mkdir(downloads, { recursive: true });
  await run('apt-get', ['download', pkg.aptPackage], { cwd: downloads });
  const [deb] = (await readdir(downloads)).filter((file) => file.endsWith('.deb'));
  if (deb === undefined) throw new Error(`apt-get download ${pkg.aptPackage} finished but left no .deb in ${downloads}`);
  await run('dpkg-deb', ['-x', join(downloads, deb), pkg.root]);
  const versionOutput = await run(versionBinary, ['--version']);
  if (!versionOutput.includes(`version ${pkg.version}`)) {
    throw new Error(`${versionBinary} --version printed "${versionOutput.trim()}", expected version ${pkg.version}`);
  }
  await rm(downloads, { recursive: true });
  await writeFile(pkg.marker, `${deb}\n`);
  log(`${pkg.label}: installed (${deb})`);
}

// ---- Go-built tools: the Temporal CLI (its dev server), kine (etcd API on SQLite), the Kubernetes commands, Helm, the exporters ----

interface GoToolchain {
  go: string;
  env: NodeJS.ProcessEnv;
  /** `nice -n 19 go` when nice exists: the builds take both cores for minutes and must not starve other work. */
  command: (
    args: readonly string[],
    options: { cwd?: string; gobin?: string; env?: NodeJS.ProcessEnv; timeoutMs: number },
  ) => Promise<string>;
}

function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const diff = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

let goToolchainPromise: Promise<GoToolchain> | undefined;

/** Finds Go (PATH, then /usr/local/go) and checks it is new enough; only called when something must be built. */
function goToolchain(): Promise<GoToolchain> {
  goToolchainPromise ??= (async () => {
    const label = `Go ${GO_MIN_VERSION}+ (to build the Go tools and fetch the Prometheus Operator CRDs)`;
    const go = findOnPath('go') ?? (existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
    const install = `install Go ${GO_MIN_VERSION} or newer from https://go.dev/dl/ (Debian's golang-go is too old) and put it on PATH`;
    if (!go) throw new Error(`${label} is missing; ${install}`);
    // GOTOOLCHAIN=local: never fetch another toolchain behind our back; a too-old Go fails here instead.
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      GOTOOLCHAIN: 'local',
      CGO_ENABLED: '0',
      // -p=2: at most two packages compile at once (the machine may have few cores and other work).
      GOFLAGS: `${process.env.GOFLAGS ?? ''} -p=2`.trim(),
    };
    const version = (await run(go, ['env', 'GOVERSION'], { env })).trim().replace(/^go/, '');
    if (compareVersions(version, GO_MIN_VERSION) < 0) {
      throw new Error(`${label}: found go${version} at ${go}; ${install}`);
    }
    log(`${label}: ready (${go}, go${version})`);
    const nice = findOnPath('nice');
    return {
      go,
      env,
      command: (args, options) => {
        const commandEnv = { ...env, ...options.env, ...(options.gobin ? { GOBIN: options.gobin } : {}) };
        const [cmd, cmdArgs] = nice ? [nice, ['-n', '19', go, ...args]] : [go, [...args]];
        return run(cmd, cmdArgs, { env: commandEnv, cwd: options.cwd, timeoutMs: options.timeoutMs });
      },
    };
  })();
  goToolchainPromise.catch(() => (goToolchainPromise = undefined));
  return goToolchainPromise;
}

interface GoToolBuild {
  tool: GoTool;
  /** Shown in the progress line, e.g. how long a cold build takes. */
  expectation: string;
  build: (go: GoToolchain, tool: GoTool) => Promise<unknown>;
  /** Arguments that make the binary print its version, and the text that output must contain. */
  versionArgs: readonly string[];
  expectedVersion: string;
}

async function ensureGoTool({ tool, expectation, build, versionArgs, expectedVersion }: GoToolBuild): Promise<void> {
  if (isToolProvisioned(tool)) {
    log(`${tool.label}: ready (${tool.binary})`);
    return;
  }
  const go = await goToolchain();
  log(`${tool.label}: building from source with go into ${tool.binary} (${expectation})`);
  const started = Date.now();
  // No marker means an earlier run did not finish: start from scratch (Go's build cache keeps the compiled packages).
  await rm(tool.dir, { recursive: true, force: true });
  await mkdir(join(tool.dir, 'bin'), { recursive: true });
  try {
    await build(go, tool);
  } catch (error) {
    throw new Error(`building ${tool.label} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  const versionOutput = await run(tool.binary, versionArgs);
  if (!versionOutput.includes(expectedVersion)) {
    throw new Error(`${tool.binary} ${versionArgs.join(' ')} printed "${versionOutput.trim()}", expected ${expectedVersion}`);
  }
  const seconds = Math.round((Date.now() - started) / 1000);
  await writeFile(tool.marker, `${versionOutput.trim()}\nbuilt in ${seconds} s on ${new Date().toISOString()}\n`);
  log(`${tool.label}: installed in ${seconds} s (${versionOutput.trim().split('\n')[0]})`);
}

/** `-X` flags that set string variables at link time, like the projects' own Makefiles do. */
function linkerVariables(variables: Record<string, string>): string[] {
  return Object.entries(variables).map(([name, value]) => `-X ${name}=${value}`);
}

const kine: GoToolBuild = {
  tool: kineTool(),
  expectation: 'about 3-4 min on 2 cores, once',
  versionArgs: ['--version'],
  expectedVersion: `v${KINE_VERSION}`,
  // CGO_ENABLED=0 selects kine's pure-Go SQLite driver (modernc.org/sqlite): no C compiler needed.
  build: (go, tool) =>
    go.command(
      [
        'install',
        '-trimpath',
        `-ldflags=-s -w ${linkerVariables({ 'github.com/k3s-io/kine/pkg/version.Version': `v${KINE_VERSION}` }).join(' ')}`,
        `github.com/k3s-io/kine@v${KINE_VERSION}`,
      ],
      { gobin: join(tool.dir, 'bin'), timeoutMs: 45 * 60_000 },
    ),
};

const temporalCli: GoToolBuild = {
  tool: temporalCliTool(),
  expectation: 'about 3 min on 2 cores, once',
  versionArgs: ['--version'],
  expectedVersion: `temporal version ${TEMPORAL_CLI_VERSION}`,
  // The CLI's release builds stamp its version the same way.
  build: (go, tool) =>
    go.command(
      [
        'install',
        '-trimpath',
        `-ldflags=-s -w ${linkerVariables({ 'github.com/temporalio/cli/temporalcli.Version': TEMPORAL_CLI_VERSION }).join(' ')}`,
        `github.com/temporalio/cli/cmd/temporal@v${TEMPORAL_CLI_VERSION}`,
      ],
      { gobin: join(tool.dir, 'bin'), timeoutMs: 45 * 60_000 },
    ),
};

const helm: GoToolBuild = {
  tool: helmTool(),
  expectation: 'about 2-3 min on 2 cores, once',
  versionArgs: ['version', '--short'],
  expectedVersion: `v${HELM_VERSION}`,
  build: (go, tool) => {
    // Helm's Makefile stamps the Kubernetes version it assumes offline (`helm template`, lint) from the
    // client-go it is built with: 0.37 for Helm 3.22, the same minor as our API server.
    const [major, minor] = KUBERNETES_VERSION.split('.');
    const variables = linkerVariables({
      'helm.sh/helm/v3/internal/version.version': `v${HELM_VERSION}`,
      'helm.sh/helm/v3/internal/version.gitTreeState': 'clean',
      'helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor': major ?? '1',
      'helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor': minor ?? '0',
      'helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor': major ?? '1',
      'helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor': minor ?? '0',
    });
    return go.command(['install', '-trimpath', `-ldflags=-s -w ${variables.join(' ')}`, `helm.sh/helm/v3/cmd/helm@v${HELM_VERSION}`], {
      gobin: join(tool.dir, 'bin'),
      timeoutMs: 45 * 60_000,
    });
  },
};

/**
 * k8s.io/kubernetes cannot be `go install`ed: its go.mod requires its staging modules (k8s.io/api, ...) at
 * v0.0.0 and replaces them with ./staging directories. So we build from a throwaway module that requires
 * k8s.io/kubernetes and points each of those replacements at the published v0.<minor>.<patch> module.
 * Each command gets its own copy of that module (in its own tool folder); Go's module and build caches are shared.
 */
async function buildKubernetesCommand(go: GoToolchain, tool: GoTool, command: string): Promise<void> {
  const timeoutMs = 90 * 60_000;
  const buildDir = join(tool.dir, 'build');
  await mkdir(buildDir, { recursive: true });
  const info = JSON.parse(
    await go.command(['mod', 'download', '-json', `k8s.io/kubernetes@v${KUBERNETES_VERSION}`], { cwd: buildDir, timeoutMs }),
  ) as { GoMod?: string; Error?: string; Origin?: { Hash?: string } };
  if (!info.GoMod) throw new Error(`go mod download k8s.io/kubernetes@v${KUBERNETES_VERSION}: ${info.Error ?? 'no go.mod'}`);
  const upstream = await readFile(info.GoMod, 'utf8');
  const stagingVersion = `v0.${KUBERNETES_VERSION.split('.').slice(1).join('.')}`;
  const staging = [...upstream.matchAll(/^\s*(k8s\.io\/[\w.-]+)\s+=>\s+\.\/staging\/src\/\1\s*$/gm)].map((m) => m[1]);
  if (staging.length === 0) throw new Error(`no ./staging replacements found in ${info.GoMod}`);
  const directives = upstream.split('\n').filter((line) => /^(go|godebug) /.test(line));
  await writeFile(
    join(buildDir, 'go.mod'),
    [
      `// Generated by test/infra/provision.ts to build ${command} v${KUBERNETES_VERSION}.`,
      `module local.shop-infra/${command}`,
      '',
      ...directives,
      '',
      `require k8s.io/kubernetes v${KUBERNETES_VERSION}`,
      '',
      'replace (',
      ...staging.map((module) => `\t${module} => ${module} ${stagingVersion}`),
      ')',
      '',
    ].join('\n'),
  );
  // The same stamping as Kubernetes' hack/lib/version.sh, so /version reports v1.x.y and not v0.0.0.
  const [major, minor] = KUBERNETES_VERSION.split('.');
  const stamp: Record<string, string> = {
    gitVersion: `v${KUBERNETES_VERSION}`,
    gitMajor: major ?? '1',
    gitMinor: minor ?? '0',
    gitTreeState: 'clean',
    buildDate: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  };
  if (info.Origin?.Hash) stamp.gitCommit = info.Origin.Hash;
  const variables = Object.entries(stamp).flatMap(([key, value]) =>
    linkerVariables({ [`k8s.io/component-base/version.${key}`]: value, [`k8s.io/client-go/pkg/version.${key}`]: value }),
  );
  // -mod=mod lets this first build write go.sum; the tags are the ones Kubernetes' own build uses.
  await go.command(
    [
      'build',
      '-mod=mod',
      '-trimpath',
      '-tags=selinux,notest,grpcnotrace',
      `-ldflags=-s -w ${variables.join(' ')}`,
      '-o',
      tool.binary,
      `k8s.io/kubernetes/cmd/${command}`,
    ],
    { cwd: buildDir, timeoutMs },
  );
}

function kubernetesCommand(tool: GoTool, command: string, expectation: string): GoToolBuild {
  return {
    tool,
    expectation,
    versionArgs: ['--version'],
    expectedVersion: `Kubernetes v${KUBERNETES_VERSION}`,
    build: (go, built) => buildKubernetesCommand(go, built, command),
  };
}

const kubeApiServer = kubernetesCommand(kubeApiServerTool(), 'kube-apiserver', 'about 10 min and 2.5 GB of memory on 2 cores, once');
// Most of their packages are already compiled for kube-apiserver, just before them.
const kubeControllerManager = kubernetesCommand(kubeControllerManagerTool(), 'kube-controller-manager', 'about 4-8 min on 2 cores, once');
const kubeScheduler = kubernetesCommand(kubeSchedulerTool(), 'kube-scheduler', 'about 1-3 min on 2 cores, once');

interface PinnedCommand {
  module: string;
  version: string;
  /** The command's package inside the module. */
  command: string;
  linkerVariables: Record<string, string>;
  env?: NodeJS.ProcessEnv;
}

/**
 * `go install module/cmd@version` fails for the exporters: it reads the module's version list (for its
 * deprecation check), which the proxy refuses. A throwaway module that requires the exact version builds.
 */
async function buildPinnedCommand(go: GoToolchain, tool: GoTool, pinned: PinnedCommand): Promise<void> {
  const buildDir = join(tool.dir, 'build');
  await mkdir(buildDir, { recursive: true });
  const name = tool.binary.split('/').at(-1) ?? 'tool';
  await writeFile(
    join(buildDir, 'go.mod'),
    `// Generated by test/infra/provision.ts to build ${name} ${pinned.version}.\nmodule local.shop-infra/${name}\n\nrequire ${pinned.module} v${pinned.version}\n`,
  );
  await writeFile(join(buildDir, 'tools.go'), `//go:build tools\n\npackage tools\n\nimport _ "${pinned.command}"\n`);
  // -mod=mod lets this first build resolve the dependencies and write go.sum.
  await go.command(
    [
      'build',
      '-mod=mod',
      '-trimpath',
      `-ldflags=-s -w ${linkerVariables(pinned.linkerVariables).join(' ')}`,
      '-o',
      tool.binary,
      pinned.command,
    ],
    { cwd: buildDir, env: pinned.env, timeoutMs: 30 * 60_000 },
  );
}

const postgresExporter: GoToolBuild = {
  tool: postgresExporterTool(),
  expectation: 'about 1 min on 2 cores, once',
  versionArgs: ['--version'],
  expectedVersion: `version ${POSTGRES_EXPORTER_VERSION}`,
  build: (go, tool) =>
    buildPinnedCommand(go, tool, {
      module: 'github.com/prometheus-community/postgres_exporter',
      version: POSTGRES_EXPORTER_VERSION,
      command: 'github.com/prometheus-community/postgres_exporter/cmd/postgres_exporter',
      linkerVariables: { 'github.com/prometheus/common/version.Version': POSTGRES_EXPORTER_VERSION },
    }),
};

const redisExporter: GoToolBuild = {
  tool: redisExporterTool(),
  expectation: 'about 1 min on 2 cores, once',
  versionArgs: ['--version'],
  expectedVersion: `v${REDIS_EXPORTER_VERSION}`,
  build: (go, tool) =>
    buildPinnedCommand(go, tool, {
      module: 'github.com/oliver006/redis_exporter',
      version: REDIS_EXPORTER_VERSION,
      command: 'github.com/oliver006/redis_exporter',
      linkerVariables: { 'main.BuildVersion': `v${REDIS_EXPORTER_VERSION}` },
      // The checksum database has no entry for this version.
      env: { GONOSUMDB: 'github.com/oliver006/redis_exporter' },
    }),
};

const versityGw: GoToolBuild = {
  tool: versityGwTool(),
  expectation: 'about 1-2 min on 2 cores, once',
  versionArgs: ['--version'],
  expectedVersion: `Version  : v${VERSITYGW_VERSION}`,
  // Its Makefile stamps the version the same way.
  build: (go, tool) =>
    go.command(
      [
        'install',
        '-trimpath',
        `-ldflags=-s -w ${linkerVariables({ 'main.Version': `v${VERSITYGW_VERSION}` }).join(' ')}`,
        `github.com/versity/versitygw/cmd/versitygw@v${VERSITYGW_VERSION}`,
      ],
      { gobin: join(tool.dir, 'bin'), timeoutMs: 30 * 60_000 },
    ),
};

/** The CRD manifests ship in the operator's Go module (`example/prometheus-operator-crd/`): the module proxy has them. */
async function ensurePrometheusOperatorCrds(): Promise<void> {
  const label = `Prometheus Operator ${PROMETHEUS_OPERATOR_VERSION} CRDs`;
  const dir = prometheusOperatorCrdsDir();
  if (existsSync(prometheusOperatorCrdsMarker())) {
    log(`${label}: ready (${dir})`);
    return;
  }
  log(`${label}: copying them out of the Go module into ${dir}`);
  const go = await goToolchain();
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const module = `github.com/prometheus-operator/prometheus-operator@v${PROMETHEUS_OPERATOR_VERSION}`;
  const info = JSON.parse(await go.command(['mod', 'download', '-json', module], { cwd: dir, timeoutMs: 10 * 60_000 })) as {
    Dir?: string;
    Error?: string;
  };
  if (!info.Dir) throw new Error(`go mod download ${module}: ${info.Error ?? 'no module directory'}`);
  const source = join(info.Dir, 'example', 'prometheus-operator-crd');
  const manifests = (await readdir(source)).filter((file) => /^monitoring\.coreos\.com_\w+\.yaml$/.test(file));
  if (manifests.length === 0) throw new Error(`no monitoring.coreos.com CRD manifests in ${source}`);
  for (const manifest of manifests) await copyFile(join(source, manifest), join(dir, manifest));
  await writeFile(prometheusOperatorCrdsMarker(), `${manifests.sort().join('\n')}\n`);
  log(`${label}: installed (${manifests.length} CRDs)`);
}

/** A venv of its own in the cache, with the pinned Schemathesis from PyPI. */
async function ensureSchemathesis(): Promise<void> {
  const tool = schemathesisTool();
  if (isPythonToolProvisioned(tool)) {
    log(`${tool.label}: ready (${tool.binary})`);
    return;
  }
  const python = pythonWithVenv();
  if (python === undefined) throw new Error(`${tool.label} needs python3 with venv; run: sudo apt-get install -y python3-venv`);
  log(`${tool.label}: installing from PyPI into ${tool.venv}`);
  // No marker means an earlier run did not finish: start from scratch.
  await rm(tool.dir, { recursive: true, force: true });
  await mkdir(tool.dir, { recursive: true });
  await run(python, ['-m', 'venv', tool.venv]);
  await run(join(tool.venv, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', `schemathesis==${SCHEMATHESIS_VERSION}`], {
    timeoutMs: 15 * 60_000,
  });
  const versionOutput = await run(tool.binary, ['--version']);
  if (!versionOutput.includes(SCHEMATHESIS_VERSION)) {
    throw new Error(`${tool.binary} --version printed "${versionOutput.trim()}", expected ${SCHEMATHESIS_VERSION}`);
  }
  await writeFile(tool.marker, `${versionOutput.trim()}\n`);
  log(`${tool.label}: installed`);
}

const started = Date.now();
try {
  await ensureSystemPackages();
  await ensureKafka();
  await ensureKafkaClassArchive();
  await ensureTemporalTestServer();
  await ensureUnpackedDebianPackage(prometheusPackage(), promtoolBin());
  // Sequential on purpose: each Go build already uses two cores.
  const goTools = [
    temporalCli,
    kine,
    helm,
    kubeApiServer,
    kubeControllerManager,
    kubeScheduler,
    postgresExporter,
    redisExporter,
    versityGw,
  ];
  for (const tool of goTools) await ensureGoTool(tool);
  await ensurePrometheusOperatorCrds();
  await ensureSchemathesis();
  log(`all ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
} catch (error) {
  console.error(`[provision] failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
