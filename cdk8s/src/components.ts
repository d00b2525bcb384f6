import type { Component } from './labels.ts';

/** The HTTP server a process opens for its probes, the variable that sets its port, and its readiness endpoint. */
export interface HttpPort {
  readonly variable: 'PORT' | 'CONSUMER_PORT' | 'WORKER_PORT';
  readonly port: number;
  /**
   * What the kubelet's readiness probe asks: only what the process cannot work without. The api
   * answers /serving (its database): with Kafka or Redis down it still serves (the outbox keeps
   * events, rate limits fail open), while its /ready reports all three as the spec defines.
   */
  readonly readinessPath: '/serving' | '/ready';
}

export interface ServiceProcess {
  readonly component: Exclude<Component, 'migrations'>;
  /** Relative to the image's working directory, the repository root. */
  readonly entrypoint: string;
  /** What the container runs: the entrypoint, for the api through START_API_PATH. */
  readonly command: readonly string[];
  readonly http: HttpPort;
}

// The platform's defaults (services/platform/src/config/variables.ts), set explicitly so that a PORT
// in spec.config cannot move the server away from its probes.
const API_PORT: HttpPort = { variable: 'PORT', port: 3000, readinessPath: '/serving' };
const CONSUMER_PORT: HttpPort = { variable: 'CONSUMER_PORT', port: 9464, readinessPath: '/ready' };
const WORKER_PORT: HttpPort = { variable: 'WORKER_PORT', port: 9465, readinessPath: '/ready' };

/**
 * The platform image's entry point (images/platform/start-api.sh): runs the api's entrypoint with
 * API_WORKERS, when unset, at the CPUs of the container's limit, so the api uses the CPUs it is given.
 */
export const START_API_PATH = '/usr/local/bin/start-api';

const service = (
  component: ServiceProcess['component'],
  entrypoint: string,
  http: HttpPort,
  command = ['node', entrypoint],
): ServiceProcess => ({ component, entrypoint, command, http });

export const API = service('api', 'services/api/src/main.ts', API_PORT, [START_API_PATH]);
export const WORKER = service('worker', 'services/worker/src/main.ts', WORKER_PORT);
export const CONSUMER = service('consumer', 'services/consumer/src/main.ts', CONSUMER_PORT);

/**
 * `npm run db:migrate` without npm: npm would want a writable home for its logs, and the root filesystem
 * is read-only. It leaves the schema version it recorded (or the one it refused to run older code on) in
 * the container's termination message, where the operator reads it.
 */
export const MIGRATE_COMMAND = ['node', 'services/platform/src/db/migrations/cli.ts', 'deploy', '--summary-file=/dev/termination-log'];
/** Added to MIGRATE_COMMAND for a Shop with ALLOW_DOWNGRADE_ANNOTATION: run even when a newer version migrated the schema. */
export const ALLOW_DOWNGRADE_FLAG = '--allow-downgrade';

/**
 * `npm run secrets:rewrap` without npm: moves every stored secret to SECRETS_MASTER_KEY (docs/secrets.md),
 * at SECRETS_REWRAP_ROWS_PER_SECOND (spec.config), and leaves the rows per key id in the container's
 * termination message (the default terminationMessagePath), where the operator reads them.
 */
/**
 * `npm run db:seed -- --admin-only` without npm: the first admin staff user from SEED_ADMIN_EMAIL and
 * SEED_ADMIN_PASSWORD (SEED_ADMIN_NAME optional), no demo catalog. The operator's seed Job of spec.seed.
 */
export const SEED_COMMAND = ['node', 'services/api/src/seed.ts', '--admin-only'];
export const REWRAP_COMMAND = ['node', 'services/platform/src/secrets/cli.ts', 'rewrap', '--summary-file=/dev/termination-log'];
