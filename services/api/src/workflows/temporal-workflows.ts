import { Client, Connection } from '@temporalio/client';
import type { Config } from '@shop/platform';
import type { ApiWorkflows } from './api-workflows.ts';
import { workflowStarters } from './workflow-starters.ts';

/** A Temporal client connected at its first use, so the api starts while the engine is down (the outbox retries). */
export function temporalWorkflows(config: Config & { workflowHost: string }): ApiWorkflows {
  const connection = Connection.lazy({ address: config.workflowHost });
  return {
    listeners: workflowStarters(new Client({ connection, namespace: config.workflowNamespace })),
    start: () => undefined,
    stop: () => connection.close(),
  };
}
