// Values provided by global-setup.ts to every test through `inject(...)` from 'vitest'.
export {};

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
    redisUrl: string;
    kafkaBrokers: string;
    /** The Temporal frontend, host:port (WORKFLOW_HOST). */
    temporalAddress: string;
  }
}
