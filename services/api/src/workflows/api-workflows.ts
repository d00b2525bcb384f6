import { InProcessWorkflowEngine, type Config, type Logger } from '@shop/platform';
import { PERIODIC_WORKFLOWS } from '@shop/domain/workflows';
import { IN_PROCESS_SWEEPS, IN_PROCESS_WORKFLOWS } from './in-process-workflows.ts';
import type { ShopWorkflowEngine } from './workflow-triggers.ts';

const everyMinutes = (ms: number) => `every ${ms / 60_000} min`;

/**
 * The api's workflow engine, as configured: with WORKFLOW_HOST, Temporal; without it, the in-process
 * engine and one warning naming what needs an engine. The Temporal client (about 12 MB of resident
 * memory once loaded) is imported only when an engine is configured.
 */
export async function workflowEngine(config: Config, logger: Logger): Promise<ShopWorkflowEngine> {
  const { workflowHost } = config;
  if (workflowHost !== undefined) {
    const { connectTemporalEngine } = await import('./temporal-engine.ts');
    return connectTemporalEngine({ workflowHost, workflowNamespace: config.workflowNamespace });
  }
  const schedules = PERIODIC_WORKFLOWS.map((periodic) => `${periodic.scheduleId} ${everyMinutes(periodic.everyMs)}`).join(', ');
  logger.warn(
    `WORKFLOW_HOST is not set: the api runs the periodic sweeps itself (${schedules}), so unpaid orders are still cancelled when their stock hold runs out; ` +
      'the workflow timers that need an engine are off: the fulfilment window of paid orders, the reminders and expiry of order and business-account approvals, ' +
      "and the capture of fulfilled orders' cards; refund requests run in-process, and one left REQUESTED (a gateway that did not answer, a refund left pending) runs again on the reconcile-stranded-money schedule",
  );
  return new InProcessWorkflowEngine({ logger, workflows: IN_PROCESS_WORKFLOWS, sweeps: IN_PROCESS_SWEEPS });
}
