import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tx } from '../../src/kernel/context.ts';
import { recordWorkflowFault, workflowFaults, type WorkflowFault, type WorkflowRun } from '../../src/workflow-runs/faults.ts';
import { openAccountsTest, type AccountsTest } from '../support/accounts.ts';

let t: AccountsTest;

beforeAll(async () => {
  t = await openAccountsTest('workflow_faults');
});

afterAll(async () => {
  await t?.close();
});

const inTx = <T>(work: (tx: Tx) => Promise<T>): Promise<T> => t.prisma.$transaction(work);

const RUN: WorkflowRun = { workflow: 'OrderLifecycleWorkflow', workflowId: 'order-42', runId: 'run-1' };
const OVERDUE: WorkflowFault = { entityType: 'order', entityId: '42', reason: 'fulfilment_overdue', details: { overdueDays: 3 } };

describe('recordWorkflowFault', () => {
  it('records a run, reason and entity once: a retried activity writes no second row', async () => {
    expect(await inTx((tx) => recordWorkflowFault(tx, RUN, OVERDUE))).toBe(true);
    expect(await inTx((tx) => recordWorkflowFault(tx, RUN, { ...OVERDUE, details: { overdueDays: 4 } }))).toBe(false);

    const rows = await t.prisma.workflowFault.findMany({ where: { workflowId: 'order-42' } });
    expect(rows).toEqual([
      {
        id: expect.any(BigInt),
        workflow: 'OrderLifecycleWorkflow',
        workflowId: 'order-42',
        runId: 'run-1',
        entityType: 'order',
        entityId: '42',
        reason: 'fulfilment_overdue',
        details: { overdueDays: 3 },
        createdAt: expect.any(Date),
      },
    ]);
  });

  it('records the fault again for another run, reason or entity', async () => {
    expect(await inTx((tx) => recordWorkflowFault(tx, { ...RUN, runId: 'run-2' }, OVERDUE))).toBe(true);
    expect(await inTx((tx) => recordWorkflowFault(tx, RUN, { ...OVERDUE, reason: 'payment_overdue' }))).toBe(true);
    expect(await inTx((tx) => recordWorkflowFault(tx, RUN, { ...OVERDUE, entityType: 'reservation' }))).toBe(true);
    expect(await inTx((tx) => recordWorkflowFault(tx, RUN, { ...OVERDUE, entityId: '43' }))).toBe(true);
    expect(await t.prisma.workflowFault.count({ where: { workflowId: 'order-42' } })).toBe(5);
  });
});

describe('workflowFaults', () => {
  it('lists newest first, by workflow, from since (included) to until (excluded), a page at a time', async () => {
    const sweep: WorkflowRun = { workflow: 'ExpireStaleReservationsWorkflow', workflowId: 'expire-stale-reservations', runId: 'sweep-1' };
    await inTx((tx) =>
      recordWorkflowFault(tx, sweep, { entityType: 'order', entityId: '7', reason: 'held_for_settled_order', details: {} }),
    );
    const all = await inTx((tx) => workflowFaults(tx, {}, { take: 100 }));
    expect(all.map((row) => row.id)).toEqual(all.map((row) => row.id).sort((a, b) => (a > b ? -1 : 1)));
    expect(all).toHaveLength(6);
    expect(all[0]?.workflow).toBe('ExpireStaleReservationsWorkflow');

    const lifecycle = await inTx((tx) => workflowFaults(tx, { workflow: 'OrderLifecycleWorkflow' }, { take: 100 }));
    expect(lifecycle.map((row) => row.id)).toEqual(all.slice(1).map((row) => row.id));

    const [newest] = all;
    const page = await inTx((tx) => workflowFaults(tx, {}, { take: 2, beforeId: newest?.id }));
    expect(page.map((row) => row.id)).toEqual(all.slice(1, 3).map((row) => row.id));

    const at = newest?.createdAt ?? new Date();
    expect(
      (await inTx((tx) => workflowFaults(tx, { since: at, until: new Date(at.getTime() + 1) }, { take: 100 }))).map((row) => row.id),
    ).toContain(newest?.id);
    expect((await inTx((tx) => workflowFaults(tx, { until: at }, { take: 100 }))).map((row) => row.id)).not.toContain(newest?.id);
  });
});
