import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client, type ScheduleOptions } from '@temporalio/client';
import { PERIODIC_WORKFLOWS, TASK_QUEUE, type PeriodicWorkflow } from '@shop/domain/workflows';
import type { ExtensionSchedule, Logger } from '@shop/platform';

const OVERLAP = { skip: ScheduleOverlapPolicy.SKIP } as const;

/** A core sweep, or a workflow of an extension, on a fixed interval (a core sweep's workflow reads its own batch). */
export type ScheduledWorkflow = Omit<PeriodicWorkflow, 'workflowType' | 'batch'> & { readonly workflowType: string };

/** An extension's schedule, run as the core's are: overlapping runs skipped, one missed run made up within an interval. */
export function extensionScheduleOf(schedule: ExtensionSchedule): ScheduledWorkflow {
  const everyMs = schedule.everyMinutes * 60_000;
  return {
    scheduleId: schedule.id,
    workflowType: schedule.workflowType,
    everyMs,
    overlap: 'skip',
    catchupWindowMs: everyMs,
    description: schedule.description,
  };
}

function scheduleOf(periodic: ScheduledWorkflow): Pick<ScheduleOptions, 'spec' | 'action' | 'policies'> {
  return {
    spec: { intervals: [{ every: periodic.everyMs }] },
    action: {
      type: 'startWorkflow',
      workflowType: periodic.workflowType,
      taskQueue: TASK_QUEUE,
      workflowId: periodic.scheduleId,
      args: [],
    },
    policies: { overlap: OVERLAP[periodic.overlap], catchupWindow: periodic.catchupWindowMs },
  };
}

/**
 * Creates each declared schedule, or brings an existing one to its declaration: every worker does
 * this at start, so two workers starting at once, or a restart, still leave one schedule each (the
 * second create is refused and becomes an update).
 */
export async function ensureSchedules(
  client: Client,
  logger: Logger,
  periodicWorkflows: readonly ScheduledWorkflow[] = PERIODIC_WORKFLOWS,
): Promise<void> {
  for (const periodic of periodicWorkflows) {
    const schedule = scheduleOf(periodic);
    try {
      await client.schedule.create({ scheduleId: periodic.scheduleId, ...schedule, memo: { description: periodic.description } });
      logger.info({ schedule: periodic.scheduleId, every_ms: periodic.everyMs }, `created the schedule ${periodic.scheduleId}`);
    } catch (error) {
      if (!(error instanceof ScheduleAlreadyRunning)) throw error;
      await client.schedule.getHandle(periodic.scheduleId).update((current) => ({ ...current, ...schedule }));
      logger.debug({ schedule: periodic.scheduleId }, `the schedule ${periodic.scheduleId} exists; brought it to its declaration`);
    }
  }
}
