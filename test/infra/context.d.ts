// Values provided by global-setup.ts to every test through `inject(...)` from 'vitest'.
export {};

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
    redisUrl: string;
    kafkaBrokers: string;
    /** The Temporal frontend, host:port (WORKFLOW_HOST). */
    temporalAddress: string;
    /** The Temporal server's Prometheus endpoint, `http://127.0.0.1:<port>/metrics`. */
    temporalMetricsUrl: string;
  }
}
