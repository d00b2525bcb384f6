import type { Prisma } from '@shop/platform';
import type { Tx } from '../kernel/index.ts';

/** Which workflow run found the fault; a sweep run in-process (no workflow engine) names its pass. */
export interface WorkflowRun {
  readonly workflow: string;
  readonly workflowId: string;
  readonly runId: string;
}

/** An assumption of a workflow that proved false, about one entity. */
export interface WorkflowFault {
  readonly entityType: string;
  readonly entityId: string;
  /** A stable snake_case code such as `fulfilment_overdue`: dashboards and the metric group by it. */
  readonly reason: string;
  readonly details: Prisma.InputJsonObject;
}

/**
 * Records the fault once per run, reason and entity (an activity retried after a crash writes no
 * second row). True when this call wrote it: count the metric only then.
 */
export async function recordWorkflowFault(tx: Tx, run: WorkflowRun, fault: WorkflowFault): Promise<boolean> {
  const inserted = await tx.$executeRaw`
    INSERT INTO workflow_faults (workflow, workflow_id, run_id, entity_type, entity_id, reason, details)
    VALUES (${run.workflow}, ${run.workflowId}, ${run.runId}, ${fault.entityType}, ${fault.entityId}, ${fault.reason}, ${JSON.stringify(fault.details)}::jsonb)
    ON CONFLICT (workflow_id, run_id, reason, entity_type, entity_id) DO NOTHING`;
  return inserted === 1;
}

export interface WorkflowFaultFilter {
  readonly workflow?: string;
  /** Faults recorded at or after this time. */
  readonly since?: Date;
  /** Faults recorded before this time. */
  readonly until?: Date;
}

/** Newest first, by id; `beforeId` continues a page. One more row than `take` tells whether a next page exists. */
export function workflowFaults(tx: Tx, filter: WorkflowFaultFilter, page: { take: number; beforeId?: bigint }) {
  const createdAt = {
    ...(filter.since === undefined ? {} : { gte: filter.since }),
    ...(filter.until === undefined ? {} : { lt: filter.until }),
  };
  return tx.workflowFault.findMany({
    where: {
      ...(filter.workflow === undefined ? {} : { workflow: filter.workflow }),
      ...(filter.since === undefined && filter.until === undefined ? {} : { createdAt }),
      ...(page.beforeId === undefined ? {} : { id: { lt: page.beforeId } }),
    },
    orderBy: { id: 'desc' },
    take: page.take,
  });
}
