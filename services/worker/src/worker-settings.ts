import { exitWithConfigProblems, type Config } from '@shop/platform';

export interface WorkerSettings {
  readonly workflowHost: string;
  readonly namespace: string;
  /** Port of the /health, /ready and /metrics server. */
  readonly port: number;
  /** Activities run at once (the SDK's maxConcurrentActivityTaskExecutions). */
  readonly activityConcurrency: number;
}

/** The worker's own rules on top of the validated platform configuration: one line per problem. */
export function workerProblems(config: Config): string[] {
  const problems: string[] = [];
  if (config.workflowHost === undefined) problems.push('WORKFLOW_HOST: is required by the worker (the Temporal frontend, host:port)');
  // Without DATABASE_URL a process starts its own embedded database, beside the api's rather than in it.
  if (config.databaseUrl === undefined) problems.push('DATABASE_URL: is required by the worker (the embedded database belongs to the api)');
  // Each running activity may hold a connection for its transaction; a read outside it needs one more.
  if (config.workerActivityConcurrency >= config.databasePoolMax) {
    problems.push(
      `WORKER_ACTIVITY_CONCURRENCY: must be below DATABASE_POOL_MAX (got ${config.workerActivityConcurrency} with a pool of ${config.databasePoolMax}), so a read outside an activity's transaction always finds a connection`,
    );
  }
  return problems;
}

/** The worker's settings, or the process stops with one line per problem and exit code 78. */
export function loadWorkerSettingsOrExit(config: Config): WorkerSettings {
  const problems = workerProblems(config);
  if (config.workflowHost === undefined || problems.length > 0) return exitWithConfigProblems(problems);
  return {
    workflowHost: config.workflowHost,
    namespace: config.workflowNamespace,
    port: config.workerPort,
    activityConcurrency: config.workerActivityConcurrency,
  };
}
