// `npm run dev:stack`: PostgreSQL, Redis, Kafka, Temporal, versitygw (S3) and Prometheus from the provisioned
// cache on fixed loopback ports, with their data kept under .data/dev-stack; prints the environment for the
// api, worker and consumer, and stops every server on SIGINT (Ctrl-C) or SIGTERM.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { loadExtensionConfig } from '@shop/platform';
import { s3ClientOf, s3Config, s3SettingsOf, setUpBucket } from '../../extensions/s3-storage/src/index.ts';
import {
  isKafkaProvisioned,
  isPostgresInstalled,
  isPrometheusProvisioned,
  isRedisInstalled,
  isToolProvisioned,
  kafkaLibsDir,
  postgresBinDir,
  prometheusBin,
  redisServerBin,
  temporalCliTool,
  versityGwTool,
} from './layout.ts';
import { requireProvisioned, type ServerHandle } from './managed-server.ts';
import { findOnPath, isPortFree } from './proc.ts';
import { startPrometheus } from './prometheus.ts';
import { startKafka, startPostgres, startRedis, startTemporal } from './servers.ts';
import { startVersityGw } from './versitygw.ts';
import {
  DEV_STACK_DATABASE,
  DEV_STACK_BUCKET,
  DEV_STACK_PORTS,
  DEV_STACK_S3_KEYS,
  devPrometheusConfig,
  devStackEnvironment,
  environmentBlock,
  readDevStackSettings,
  type DevStackPort,
  type DevStackSettings,
} from './dev-stack-settings.ts';

const REPO_ROOT = join(import.meta.dirname, '..', '..');

/** Everything is checked before anything starts, so a missing binary or a taken port costs no server start. */
async function preflight(settings: DevStackSettings): Promise<void> {
  requireProvisioned(`PostgreSQL (${postgresBinDir})`, isPostgresInstalled());
  requireProvisioned(`Redis (${redisServerBin})`, isRedisInstalled());
  requireProvisioned(`Kafka (${kafkaLibsDir()})`, isKafkaProvisioned());
  requireProvisioned('Java (to run Kafka)', findOnPath('java') !== undefined);
  const temporal = temporalCliTool();
  requireProvisioned(`${temporal.label} (${temporal.binary})`, isToolProvisioned(temporal));
  requireProvisioned(`Prometheus (${prometheusBin()})`, isPrometheusProvisioned());
  const versityGw = versityGwTool();
  requireProvisioned(`${versityGw.label} (${versityGw.binary})`, isToolProvisioned(versityGw));
  for (const [key, port] of Object.entries(settings.ports)) {
    const { label, variable } = DEV_STACK_PORTS[key as DevStackPort];
    if (!(await isPortFree(port))) throw new Error(`port ${port} (${label}) is already in use; stop what listens there or set ${variable}`);
  }
}

async function createDatabase(postgresUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    const existing = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DEV_STACK_DATABASE]);
    if (existing.rowCount === 0) await client.query(`CREATE DATABASE ${DEV_STACK_DATABASE}`);
  } finally {
    await client.end();
  }
}

/** The bucket of the printed S3 variables, read as the services read them, made as `npm run storage:setup` makes it. */
async function createBucket(environment: Record<string, string>): Promise<void> {
  const settings = s3SettingsOf(loadExtensionConfig(s3Config, environment));
  const client = s3ClientOf(settings);
  try {
    await setUpBucket(settings, client);
  } finally {
    client.destroy();
  }
}

async function startAll(settings: DevStackSettings, started: ServerHandle[]): Promise<void> {
  const { dir, ports } = settings;
  const keep = async (start: Promise<ServerHandle>): Promise<ServerHandle> => {
    const handle = await start;
    started.push(handle);
    console.log(`${handle.name} ready on ${handle.url}`);
    return handle;
  };
  const results = await Promise.allSettled([
    keep(startPostgres({ port: ports.postgres, dir: join(dir, 'postgres') })).then((postgres) => createDatabase(postgres.url)),
    keep(startRedis({ port: ports.redis, dir: join(dir, 'redis') })),
    keep(startKafka({ port: ports.kafka, controllerPort: ports.kafkaController, dir: join(dir, 'kafka') })),
    keep(
      startTemporal({
        port: ports.temporal,
        httpPort: ports.temporalHttp,
        metricsPort: ports.temporalMetrics,
        uiPort: ports.temporalUi,
        dir: join(dir, 'temporal'),
      }),
    ),
    keep(startVersityGw({ port: ports.s3, dir: join(dir, 'versitygw'), ...DEV_STACK_S3_KEYS })).then(() =>
      createBucket(devStackEnvironment(settings)),
    ),
    keep(startPrometheus(devPrometheusConfig(settings), { port: ports.prometheus, dir: join(dir, 'prometheus') })),
  ]);
  const failures = results.flatMap((result) =>
    result.status === 'rejected' ? [result.reason instanceof Error ? result.reason.message : String(result.reason)] : [],
  );
  if (failures.length > 0) throw new Error(failures.join('\n'));
}

function printReady(settings: DevStackSettings, block: string, envFile: string): void {
  const { ports, scrapePorts } = settings;
  console.log(`
# The dev stack is up; its data is kept in ${settings.dir}.
# Point the api, worker and consumer at it (or: set -a; . ${envFile}; set +a):
${block}
# First run: npm run db:migrate, then npm run db:seed (see README.md). Start the api before the worker
# and the consumer: it applies the extensions' migrations, and they refuse to start until it has.
# S3 (versitygw): bucket ${DEV_STACK_BUCKET}, publicly readable, at http://127.0.0.1:${ports.s3}
# Temporal web UI: http://127.0.0.1:${ports.temporalUi}
# Prometheus: http://127.0.0.1:${ports.prometheus}, scraping the api on ${scrapePorts.api}, the worker on ${scrapePorts.worker}, the consumer on ${scrapePorts.consumer}
dev stack ready; Ctrl-C stops it`);
}

async function main(): Promise<void> {
  const settings = readDevStackSettings(process.env, REPO_ROOT);
  await preflight(settings);

  const started: ServerHandle[] = [];
  let stopping: Promise<boolean> | undefined;
  /** Resolves whether every server stopped; says which did not. */
  const stopAll = (): Promise<boolean> =>
    (stopping ??= (async () => {
      const results = await Promise.allSettled(started.map((handle) => handle.stop()));
      const failures = results.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
      for (const failure of failures) console.error(`dev stack: ${failure instanceof Error ? failure.message : String(failure)}`);
      return failures.length === 0;
    })());
  // Installed before the first start: a signal during startup stops the stack once every start has settled.
  let ready = false;
  let signalled = false;
  const stopAndExit = () => void stopAll().then((stopped) => process.exit(stopped ? 0 : 1));
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) return;
    signalled = true;
    console.log(`${signal}: stopping the dev stack`);
    if (ready) stopAndExit();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    await startAll(settings, started);
  } catch (error) {
    const stopped = await stopAll();
    // Ctrl-C in a terminal also reaches the servers, so a start cut short by it is no failure.
    if (signalled) process.exit(stopped ? 0 : 1);
    throw error;
  }
  if (signalled) return stopAndExit();
  ready = true;

  const environment = devStackEnvironment(settings);
  const envFile = join(settings.dir, 'env');
  const block = environmentBlock(environment);
  await writeFile(envFile, `${block}\n`);
  printReady(settings, block, envFile);
}

main().catch((error: unknown) => {
  console.error(`dev stack: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
