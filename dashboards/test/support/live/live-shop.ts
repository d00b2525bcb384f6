// One Shop as real processes: its own PostgreSQL and Redis servers (so the test can stop them), the
// shared Kafka and Temporal (a namespace of its own), the api, worker and consumer processes, and the
// two exporters; each reachable as a scrape target labelled with the Shop's namespace and name.
import path from 'node:path';
import { inject } from 'vitest';
import { applyMigrations } from '@shop/platform';
import { startPostgresExporter, startRedisExporter, type Exporter } from '../../../../test/infra/exporters.ts';
import { createTestNamespace, uniqueName } from '../../../../test/infra/isolation.ts';
import { run } from '../../../../test/infra/proc.ts';
import { startPostgres, startRedis, type ServerHandle } from '../../../../test/infra/servers.ts';
import { liftRateLimits } from '../../../../test/support/rate-limits.ts';
import { migrateRepositoryExtensions } from '../../../../test/support/extensions.ts';
import { spawnService, type ServiceProcess } from '../../../../test/support/service-process.ts';
import { API_MAIN } from '../../../../services/api/test/support/run-api.ts';
import { COUNTING_CONSUMER } from '../../../../services/consumer/test/support/consumer-process.ts';
import { createTopic } from '../../../../services/consumer/test/support/kafka.ts';
import { WORKER_MAIN } from '../../../../test/support/workflows.ts';
import type { ScrapeTarget } from './prometheus-server.ts';

const SEED = path.resolve(import.meta.dirname, '../../../../services/api/src/seed.ts');
const REINDEX = path.resolve(import.meta.dirname, '../../../../services/domain/src/search/reindex-cli.ts');

/** The target labels every series of the Shop carries, as the Prometheus Operator and its relabelling would set them. */
export const SHOP_LABELS = { namespace: 'shop-live', shop: 'live' } as const;
export const ADMIN = { email: 'admin@live.test', password: 'live-admin-password' } as const;

export interface LiveShop {
  readonly postgres: ServerHandle;
  readonly redis: ServerHandle;
  readonly databaseUrl: string;
  readonly apiUrl: string;
  readonly temporalNamespace: string;
  /** The consumer runs a counting group on a topic of its own (the real groups' names are shared by every test file). */
  readonly consumer: { readonly topic: string; readonly group: string };
  readonly targets: readonly ScrapeTarget[];
  /** What the processes printed besides INFO and DEBUG lines, for failure messages. */
  output(): string;
  close(): Promise<void>;
}

/** The last lines of a process's output that are not INFO or DEBUG log lines, each cut short. */
function problems(output: string): string {
  const quiet = /^\{"level":"(INFO|DEBUG)"/;
  return output
    .split('\n')
    .filter((line) => line !== '' && !quiet.test(line))
    .slice(-20)
    .map((line) => line.slice(0, 600))
    .join('\n');
}

async function listeningService(
  name: string,
  entry: string,
  env: NodeJS.ProcessEnv,
  processes: Map<string, ServiceProcess>,
): Promise<string> {
  const service = spawnService(entry, env);
  processes.set(name, service);
  return service.listening(90_000);
}

export async function startLiveShop(): Promise<LiveShop> {
  const [postgres, redis, temporalNamespace] = await Promise.all([startPostgres(), startRedis(), createTestNamespace('live')]);
  const processes = new Map<string, ServiceProcess>();
  const exporters: Exporter[] = [];
  const close = async () => {
    for (const service of processes.values())
      if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGTERM');
    await Promise.all([...processes.values()].map((service) => service.exited()));
    await Promise.all(exporters.map((exporter) => exporter.stop()));
    await Promise.all([postgres.dispose(), redis.dispose()]);
  };
  try {
    const databaseUrl = postgres.url;
    const brokers = inject('kafkaBrokers');
    await applyMigrations(databaseUrl);
    // The api, worker and consumer start together here: the worker and consumer refuse a database whose extensions the api has not migrated yet.
    await migrateRepositoryExtensions(databaseUrl);
    // The load comes from one address: the default limits would answer most of it 429.
    await liftRateLimits(databaseUrl);
    const commandEnv = { PATH: process.env.PATH, NODE_ENV: 'test', LOG_LEVEL: 'ERROR', DATABASE_URL: databaseUrl };
    await run(process.execPath, [SEED], { env: { ...commandEnv, SEED_ADMIN_EMAIL: ADMIN.email, SEED_ADMIN_PASSWORD: ADMIN.password } });
    // The seeded products in the admin index, as after `npm run search:reindex`: the consumer's freshness gauge needs a document.
    await run(process.execPath, [REINDEX, '--index=admin'], { env: commandEnv });
    const consumer = { topic: uniqueName('live'), group: uniqueName('live-group') };
    await createTopic(brokers, consumer.topic, 2);

    // Stopped after their database: they need not wait 10 s for work that cannot finish.
    const common = {
      NODE_ENV: 'test',
      LOG_LEVEL: 'INFO',
      HOST: '127.0.0.1',
      SHUTDOWN_TIMEOUT_MS: '2000',
      DATABASE_URL: databaseUrl,
      CACHE_URL: redis.url,
      BROKER_ADDRESS: brokers,
    };
    const workflows = { WORKFLOW_HOST: inject('temporalAddress'), WORKFLOW_NAMESPACE: temporalNamespace };
    const started = (exporter: Exporter) => (exporters.push(exporter), exporter);
    const [apiUrl, workerUrl, consumerUrl, postgresExporter, redisExporter] = await Promise.all([
      listeningService('api', API_MAIN, { ...common, ...workflows, PORT: '0', EVENT_SCHEMA_MODE: 'warn' }, processes),
      listeningService('worker', WORKER_MAIN, { ...common, ...workflows, WORKER_PORT: '0' }, processes),
      listeningService(
        'consumer',
        COUNTING_CONSUMER,
        { ...common, CONSUMER_PORT: '0', TEST_GROUP_ID: consumer.group, TEST_TOPIC: consumer.topic, TEST_HANDLER_DELAY_MS: '20' },
        processes,
      ),
      startPostgresExporter(databaseUrl).then(started),
      startRedisExporter(redis.url).then(started),
    ]);
    const target = (job: string, metricsUrl: string): ScrapeTarget => ({ job, metricsUrl, labels: SHOP_LABELS });
    return {
      postgres,
      redis,
      databaseUrl,
      apiUrl,
      temporalNamespace,
      consumer,
      targets: [
        target('api', `${apiUrl}/metrics`),
        target('worker', `${workerUrl}/metrics`),
        target('consumer', `${consumerUrl}/metrics`),
        target('postgres-exporter', postgresExporter.metricsUrl),
        target('redis-exporter', redisExporter.metricsUrl),
      ],
      output: () => [...processes].map(([name, service]) => `--- ${name} ---\n${problems(service.output())}`).join('\n'),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
