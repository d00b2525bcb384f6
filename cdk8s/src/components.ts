import type { Component } from './labels.ts';

/** The HTTP server a process opens for /health and /ready, and the variable that sets its port. */
export interface HttpPort {
  readonly variable: 'PORT' | 'CONSUMER_PORT';
  readonly port: number;
}

export interface ServiceProcess {
  readonly component: Exclude<Component, 'migrations'>;
  /** Relative to the image's working directory, the repository root. */
  readonly entrypoint: string;
  readonly http: HttpPort;
}

// The platform's defaults (services/platform/src/config/variables.ts), set explicitly so that a PORT
// in spec.config cannot move the server away from its probes.
const API_PORT: HttpPort = { variable: 'PORT', port: 3000 };
const CONSUMER_PORT: HttpPort = { variable: 'CONSUMER_PORT', port: 9464 };

export const API: ServiceProcess = { component: 'api', entrypoint: 'services/api/src/main.ts', http: API_PORT };
/** The worker defines no port variable of its own: it serves /health and /ready on PORT, as the api. */
export const WORKER: ServiceProcess = { component: 'worker', entrypoint: 'services/worker/src/main.ts', http: API_PORT };
export const CONSUMER: ServiceProcess = { component: 'consumer', entrypoint: 'services/consumer/src/main.ts', http: CONSUMER_PORT };

/** `npm run db:migrate` without npm: npm would want a writable home for its logs, and the root filesystem is read-only. */
export const MIGRATE_COMMAND = ['node', 'services/platform/src/db/migrations/cli.ts', 'deploy'];
