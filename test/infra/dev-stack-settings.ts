// What `npm run dev:stack` listens on and where it keeps its data, read from DEV_STACK_* variables.
import { join, resolve } from 'node:path';
import { VARIABLES } from '../../services/platform/src/config/variables.ts';

/** Each port the stack listens on, with its variable and documented default. */
export const DEV_STACK_PORTS = {
  postgres: { variable: 'DEV_STACK_POSTGRES_PORT', label: 'PostgreSQL', defaultPort: 5432 },
  redis: { variable: 'DEV_STACK_REDIS_PORT', label: 'Redis', defaultPort: 6379 },
  kafka: { variable: 'DEV_STACK_KAFKA_PORT', label: 'Kafka', defaultPort: 9092 },
  kafkaController: { variable: 'DEV_STACK_KAFKA_CONTROLLER_PORT', label: 'the Kafka controller', defaultPort: 9093 },
  temporal: { variable: 'DEV_STACK_TEMPORAL_PORT', label: 'Temporal', defaultPort: 7233 },
  temporalHttp: { variable: 'DEV_STACK_TEMPORAL_HTTP_PORT', label: "Temporal's HTTP API", defaultPort: 7243 },
  temporalMetrics: { variable: 'DEV_STACK_TEMPORAL_METRICS_PORT', label: "Temporal's metrics", defaultPort: 7244 },
  temporalUi: { variable: 'DEV_STACK_TEMPORAL_UI_PORT', label: "Temporal's web UI", defaultPort: 8233 },
  prometheus: { variable: 'DEV_STACK_PROMETHEUS_PORT', label: 'Prometheus', defaultPort: 9090 },
  s3: { variable: 'DEV_STACK_S3_PORT', label: 'versitygw (S3)', defaultPort: 7070 },
} as const;

export type DevStackPort = keyof typeof DEV_STACK_PORTS;

/** The database the stack creates for the api, worker and consumer (beside the `postgres` one). */
export const DEV_STACK_DATABASE = 'shop';
/** The bucket the stack creates (publicly readable, as `npm run storage:setup` makes it). */
export const DEV_STACK_BUCKET = 'shop-media';
/** versitygw's root keys: fixed, so the printed block stays valid across restarts. The store listens on loopback only. */
export const DEV_STACK_S3_KEYS = { accessKey: 'devstack', secretKey: 'devstack-secret-key' } as const;

export interface DevStackSettings {
  /** Data of every server, one folder each; kept between runs. */
  readonly dir: string;
  readonly ports: Readonly<Record<DevStackPort, number>>;
  /** What Prometheus scrapes: the services' metrics ports as the services themselves read them. */
  readonly scrapePorts: { readonly api: number; readonly worker: number; readonly consumer: number };
}

function parsePort(variable: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port < 1 || port > 65_535) throw new Error(`${variable} must be a port number (1-65535), not '${raw}'`);
  return port;
}

/** A service port as the service reads it: its own variable, else the default documented in variables.ts. */
function servicePort(env: NodeJS.ProcessEnv, name: 'PORT' | 'WORKER_PORT' | 'CONSUMER_PORT'): number {
  return parsePort(name, env[name], Number(VARIABLES.find((variable) => variable.name === name)?.defaultValue));
}

export function readDevStackSettings(env: NodeJS.ProcessEnv, repoRoot: string): DevStackSettings {
  const ports = Object.fromEntries(
    Object.entries(DEV_STACK_PORTS).map(([key, { variable, defaultPort }]) => [key, parsePort(variable, env[variable], defaultPort)]),
  ) as Record<DevStackPort, number>;
  const owners = new Map<number, string>();
  for (const [key, port] of Object.entries(ports)) {
    const { variable } = DEV_STACK_PORTS[key as DevStackPort];
    const other = owners.get(port);
    if (other !== undefined) throw new Error(`${other} and ${variable} are both ${port}; give each its own port`);
    owners.set(port, variable);
  }
  return {
    dir: resolve(repoRoot, env.DEV_STACK_DIR || join('.data', 'dev-stack')),
    ports,
    scrapePorts: { api: servicePort(env, 'PORT'), worker: servicePort(env, 'WORKER_PORT'), consumer: servicePort(env, 'CONSUMER_PORT') },
  };
}

/** prometheus.yml (as JSON): the api, worker and consumer, and the Temporal server, labelled as the dashboards expect. */
export function devPrometheusConfig(settings: DevStackSettings): string {
  const labels = { namespace: 'dev', shop: 'dev' };
  const job = (name: string, port: number) => ({ job_name: name, static_configs: [{ targets: [`127.0.0.1:${port}`], labels }] });
  return JSON.stringify({
    global: { scrape_interval: '5s', evaluation_interval: '5s' },
    scrape_configs: [
      job('api', settings.scrapePorts.api),
      job('worker', settings.scrapePorts.worker),
      job('consumer', settings.scrapePorts.consumer),
      // Temporal's own `namespace` label names a Temporal namespace, not the Shop's: keep it.
      { job_name: 'temporal', honor_labels: true, static_configs: [{ targets: [`127.0.0.1:${settings.ports.temporalMetrics}`] }] },
    ],
  });
}

/** The variables that point the api, worker and consumer at the stack. */
export function devStackEnvironment(settings: DevStackSettings): Record<string, string> {
  const { ports } = settings;
  return {
    DATABASE_URL: `postgresql://postgres@127.0.0.1:${ports.postgres}/${DEV_STACK_DATABASE}`,
    CACHE_URL: `redis://127.0.0.1:${ports.redis}`,
    BROKER_ADDRESS: `127.0.0.1:${ports.kafka}`,
    WORKFLOW_HOST: `127.0.0.1:${ports.temporal}`,
    FILE_STORAGE_PROVIDER: 's3',
    S3_ENDPOINT: `http://127.0.0.1:${ports.s3}`,
    S3_ACCESS_KEY: DEV_STACK_S3_KEYS.accessKey,
    S3_SECRET_KEY: DEV_STACK_S3_KEYS.secretKey,
    S3_BUCKET: DEV_STACK_BUCKET,
  };
}

/** `export NAME=value` lines: paste them into a shell, or source the file the stack writes. */
export function environmentBlock(environment: Record<string, string>): string {
  return Object.entries(environment)
    .map(([name, value]) => `export ${name}=${value}`)
    .join('\n');
}
