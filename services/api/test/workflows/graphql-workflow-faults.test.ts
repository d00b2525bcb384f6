import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStaffUser, ensureRole } from '@shop/domain/auth';
import { recordWorkflowFault, type WorkflowFault, type WorkflowRun } from '@shop/domain/workflow-runs';
import { bearer, openGraphqlApi, type GraphqlApi } from '../support/graphql-harness.ts';

let api: GraphqlApi;
let admin: Record<string, string>;

const FAULTS = `query ($workflow: String, $since: String, $until: String, $first: Int, $after: String) {
  workflowFaults(workflow: $workflow, since: $since, until: $until, first: $first, after: $after) {
    nodes { id workflow workflowId runId entityType entityId reason details createdAt }
    pageInfo { endCursor hasNextPage }
  }
}`;

interface FaultNode {
  readonly id: string;
  readonly workflow: string;
  readonly workflowId: string;
  readonly runId: string;
  readonly entityType: string;
  readonly entityId: string;
  readonly reason: string;
  readonly details: Record<string, unknown>;
  readonly createdAt: string;
}

interface FaultsData {
  workflowFaults: { nodes: FaultNode[]; pageInfo: { endCursor: string | null; hasNextPage: boolean } };
}

const LIFECYCLE = 'OrderLifecycleWorkflow';
const SWEEP = 'ExpireStaleReservationsWorkflow';

/** A fault at a chosen time: recordWorkflowFault stamps now(). */
async function insertFaultAt(run: WorkflowRun, fault: WorkflowFault, createdAt: string): Promise<void> {
  await api.prisma.$executeRaw`
    INSERT INTO workflow_faults (workflow, workflow_id, run_id, entity_type, entity_id, reason, details, created_at)
    VALUES (${run.workflow}, ${run.workflowId}, ${run.runId}, ${fault.entityType}, ${fault.entityId}, ${fault.reason}, ${JSON.stringify(fault.details)}::jsonb, ${new Date(createdAt)})`;
}

async function record(run: WorkflowRun, fault: WorkflowFault): Promise<void> {
  expect(await api.prisma.$transaction((tx) => recordWorkflowFault(tx, run, fault))).toBe(true);
}

/** The faults' entity ids, in the order the page lists them. */
const entities = (data: FaultsData): string[] => data.workflowFaults.nodes.map((node) => node.entityId);

async function login(email: string, password: string): Promise<Record<string, string>> {
  const { loginStaff } = await api.data<{ loginStaff: { accessToken: string } }>(
    'mutation ($email: String!, $password: String!) { loginStaff(email: $email, password: $password) { accessToken } }',
    { email, password },
  );
  return bearer(loginStaff.accessToken);
}

beforeAll(async () => {
  api = await openGraphqlApi('graphql_workflow_faults');
  admin = await api.adminHeaders();
  // Ids in this order: 41 oldest, 43 newest.
  await insertFaultAt(
    { workflow: LIFECYCLE, workflowId: 'order-41', runId: 'run-a' },
    {
      entityType: 'order',
      entityId: '41',
      reason: 'fulfilment_overdue',
      details: { placedAt: '2026-02-20T09:00:00.000Z', overdueDays: 9 },
    },
    '2026-03-01T10:00:00.000Z',
  );
  await insertFaultAt(
    { workflow: SWEEP, workflowId: 'expire-stale-reservations', runId: 'run-b' },
    { entityType: 'order', entityId: '40', reason: 'held_for_settled_order', details: { reservationId: '7', status: 'PLACED' } },
    '2026-03-02T10:00:00.000Z',
  );
  await record(
    { workflow: LIFECYCLE, workflowId: 'order-42', runId: 'run-c' },
    { entityType: 'order', entityId: '42', reason: 'fulfilment_overdue', details: { overdueDays: 3 } },
  );
  await record(
    { workflow: SWEEP, workflowId: 'expire-stale-reservations', runId: 'run-d' },
    { entityType: 'order', entityId: '43', reason: 'held_for_settled_order', details: { reservationId: '9', status: 'COMPLETED' } },
  );
});

afterAll(async () => {
  await api?.close();
});

describe('workflowFaults', () => {
  it('pages through the faults newest first', async () => {
    const first = await api.data<FaultsData>(FAULTS, { first: 2 }, admin);
    expect(entities(first)).toEqual(['43', '42']);
    expect(first.workflowFaults.pageInfo.hasNextPage).toBe(true);
    const second = await api.data<FaultsData>(FAULTS, { first: 2, after: first.workflowFaults.pageInfo.endCursor }, admin);
    expect(entities(second)).toEqual(['40', '41']);
    expect(second.workflowFaults.pageInfo.hasNextPage).toBe(false);
    const ids = [...first.workflowFaults.nodes, ...second.workflowFaults.nodes].map((node) => BigInt(node.id));
    expect(ids).toEqual([...ids].sort((a, b) => (a > b ? -1 : 1)));

    const past = await api.data<FaultsData>(FAULTS, { first: 2, after: second.workflowFaults.pageInfo.endCursor }, admin);
    expect(past.workflowFaults).toEqual({ nodes: [], pageInfo: { endCursor: null, hasNextPage: false } });
    // The default page holds them all.
    expect(entities(await api.data<FaultsData>(FAULTS, {}, admin))).toEqual(['43', '42', '40', '41']);
  });

  it('shows every column: ids as strings, details as JSON, times in ISO 8601', async () => {
    const { workflowFaults } = await api.data<FaultsData>(FAULTS, { until: '2026-03-02' }, admin);
    expect(workflowFaults.nodes).toEqual([
      {
        id: expect.stringMatching(/^[1-9][0-9]*$/),
        workflow: LIFECYCLE,
        workflowId: 'order-41',
        runId: 'run-a',
        entityType: 'order',
        entityId: '41',
        reason: 'fulfilment_overdue',
        details: { placedAt: '2026-02-20T09:00:00.000Z', overdueDays: 9 },
        createdAt: '2026-03-01T10:00:00.000Z',
      },
    ]);
    const [latest] = (await api.data<FaultsData>(FAULTS, { first: 1 }, admin)).workflowFaults.nodes;
    expect(Math.abs(Date.parse(latest?.createdAt ?? '') - Date.now())).toBeLessThan(60_000);
    expect(latest?.details).toEqual({ reservationId: '9', status: 'COMPLETED' });
  });

  it('filters by workflow', async () => {
    expect(entities(await api.data<FaultsData>(FAULTS, { workflow: LIFECYCLE }, admin))).toEqual(['42', '41']);
    const sweeps = await api.data<FaultsData>(FAULTS, { workflow: SWEEP, first: 1 }, admin);
    expect(entities(sweeps)).toEqual(['43']);
    const rest = await api.data<FaultsData>(FAULTS, { workflow: SWEEP, first: 1, after: sweeps.workflowFaults.pageInfo.endCursor }, admin);
    expect(entities(rest)).toEqual(['40']);
    expect(rest.workflowFaults.pageInfo.hasNextPage).toBe(false);
    expect(entities(await api.data<FaultsData>(FAULTS, { workflow: 'ApproveOrderWorkflow' }, admin))).toEqual([]);
  });

  it('filters by time: since included, until excluded', async () => {
    const between = (since: string | null, until: string | null, workflow?: string) =>
      api.data<FaultsData>(FAULTS, { since, until, workflow }, admin).then(entities);
    expect(await between('2026-03-01T10:00:00Z', '2026-03-02T10:00:00Z')).toEqual(['41']);
    expect(await between('2026-03-01T10:00:00.001Z', '2026-03-02T10:00:00.001Z')).toEqual(['40']);
    expect(await between('2026-03-02', null)).toEqual(['43', '42', '40']);
    expect(await between(null, '2026-03-03')).toEqual(['40', '41']);
    // 11:00 at +01:00 is 10:00 UTC.
    expect(await between('2026-03-01T11:00+01:00', '2026-03-01T11:00:00.001+01:00')).toEqual(['41']);
    expect(await between('2026-03-02', null, LIFECYCLE)).toEqual(['42']);
    expect(await between('2026-03-02', '2026-03-02')).toEqual([]);
  });

  it('is for staff with workflows.read', async () => {
    const guest = await api.error(FAULTS);
    expect(guest.extensions.code).toBe('UNAUTHENTICATED');

    await api.prisma.$transaction(async (tx) => {
      await ensureRole(tx, { name: 'workflow-watcher', permissions: ['workflows.read'] });
      await createStaffUser(tx, {
        email: 'watcher@shop.test',
        password: 'watcher-password-1',
        name: 'Watcher',
        roles: ['workflow-watcher'],
      });
      await createStaffUser(tx, { email: 'clerk@shop.test', password: 'clerk-password-1', name: 'Clerk' });
    });
    const watcher = await api.data<FaultsData>(FAULTS, { first: 1 }, await login('watcher@shop.test', 'watcher-password-1'));
    expect(entities(watcher)).toEqual(['43']);

    const forbidden = { message: 'missing permission workflows.read', extensions: { code: 'FORBIDDEN', permission: 'workflows.read' } };
    expect(await api.error(FAULTS, {}, await login('clerk@shop.test', 'clerk-password-1'))).toMatchObject(forbidden);

    await api.data('mutation { createChannel(input: { code: "faults-web", name: "Web", defaultCurrency: "EUR" }) { id } }', {}, admin);
    const { registerCustomer } = await api.data<{ registerCustomer: { accessToken: string } }>(
      'mutation ($input: RegisterCustomerInput!) { registerCustomer(input: $input) { accessToken } }',
      { input: { email: 'shopper@shop.test', password: 'shopper-password-1' } },
      { 'x-channel-id': 'faults-web' },
    );
    expect(await api.error(FAULTS, {}, bearer(registerCustomer.accessToken))).toMatchObject(forbidden);
  });

  it('is held by the seeded admin', async () => {
    const { staffMe } = await api.data<{ staffMe: { permissions: string[] } }>('{ staffMe { permissions } }', {}, admin);
    expect(staffMe.permissions).toContain('workflows.read');
  });

  it.each([
    [{ since: '2026-03-02T00:00:00Z', until: '2026-03-01T23:59:59.999Z' }, 'until', 'until must be the same time as since or later'],
    [{ since: '2026-03-02', until: '2026-03-01' }, 'until', 'until must be the same time as since or later'],
    [{ workflow: 'W'.repeat(101) }, 'workflow', 'workflow must be at most 100 characters'],
    [
      { since: '2026-02-30' },
      'since',
      'since must be an ISO 8601 time such as 2026-03-01T12:00:00Z, or a day such as 2026-03-01, from 1970 on',
    ],
    [
      { since: '2026-03-01T24:00:00Z' },
      'since',
      'since must be an ISO 8601 time such as 2026-03-01T12:00:00Z, or a day such as 2026-03-01, from 1970 on',
    ],
    [
      { until: '2026-03-01T10:00:00' },
      'until',
      'until must be an ISO 8601 time such as 2026-03-01T12:00:00Z, or a day such as 2026-03-01, from 1970 on',
    ],
    [
      { until: 'yesterday' },
      'until',
      'until must be an ISO 8601 time such as 2026-03-01T12:00:00Z, or a day such as 2026-03-01, from 1970 on',
    ],
    [
      { since: '1969-12-31' },
      'since',
      'since must be an ISO 8601 time such as 2026-03-01T12:00:00Z, or a day such as 2026-03-01, from 1970 on',
    ],
    [{ first: 0 }, 'first', 'first must be a whole number from 1 to 100'],
    [{ first: 101 }, 'first', 'first must be a whole number from 1 to 100'],
    [{ after: Buffer.from('order:1').toString('base64url') }, 'after', 'after must be an endCursor this API returned for the same list'],
  ])('refuses %j as BAD_USER_INPUT on %s', async (variables, field, message) => {
    expect(await api.error(FAULTS, variables, admin)).toMatchObject({ message, extensions: { code: 'BAD_USER_INPUT', field } });
  });
});
