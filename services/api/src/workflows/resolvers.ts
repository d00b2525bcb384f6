import type { Prisma } from '@shop/platform';
import { DomainError } from '@shop/domain/kernel';
import { workflowFaults, type WorkflowFaultFilter } from '@shop/domain/workflow-runs';
import type { Resolvers } from '../graphql/generated/resolver-types.ts';
import { decodeCursor, pageOf, pageSize } from '../graphql/ids.ts';
import { staffField } from '../graphql/staff-fields.ts';
import { optionalArgument } from '../graphql/text-arguments.ts';
import { iso } from '../graphql/iso.ts';

const CURSOR_KIND = 'workflowFault';
/** The column's length: a longer name matches no fault. */
const WORKFLOW_MAX_LENGTH = 100;

interface WorkflowFaultArgs {
  readonly workflow?: string | null;
  readonly since?: string | null;
  readonly until?: string | null;
}

const workflowFaultView = (fault: Prisma.WorkflowFaultModel) => ({
  id: fault.id.toString(),
  workflow: fault.workflow,
  workflowId: fault.workflowId,
  runId: fault.runId,
  entityType: fault.entityType,
  entityId: fault.entityId,
  reason: fault.reason,
  details: fault.details,
  createdAt: iso(fault.createdAt),
});

/** A day (`2026-03-01`, its start in UTC) or a time with its zone (`2026-03-01T12:00:00Z`, `…T14:00:00.250+02:00`), to the millisecond. */
const TIME =
  /^(?<year>\d{4})-(?<month>\d{2})-(?<day>\d{2})(?:T(?<hour>\d{2}):(?<minute>\d{2})(?::(?<second>\d{2})(?:\.(?<fraction>\d{1,3}))?)?(?:Z|(?<sign>[+-])(?<offsetHours>\d{2}):(?<offsetMinutes>\d{2})))?$/;

/** The time in an argument, or BAD_USER_INPUT naming it: only real days and clock times (no 2026-02-30, no 24:00), from 1970 on. */
function parseTime(value: string | null | undefined, argument: string): Date | undefined {
  if (value == null) return undefined;
  const parts = TIME.exec(value.trim())?.groups;
  if (parts !== undefined) {
    const number = (name: string): number => Number(parts[name] ?? 0);
    const [year, month, day, hour, minute, second] = ['year', 'month', 'day', 'hour', 'minute', 'second'].map(number) as [
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    const local = new Date(Date.UTC(year, month - 1, day, hour, minute, second, Number((parts['fraction'] ?? '').padEnd(3, '0'))));
    const offsetMinutes = (parts['sign'] === '-' ? -1 : 1) * (number('offsetHours') * 60 + number('offsetMinutes'));
    const real =
      year >= 1970 &&
      local.getUTCMonth() === month - 1 &&
      local.getUTCDate() === day &&
      local.getUTCHours() === hour &&
      local.getUTCMinutes() === minute &&
      local.getUTCSeconds() === second &&
      number('offsetHours') <= 23 &&
      number('offsetMinutes') <= 59;
    if (real) return new Date(local.getTime() - offsetMinutes * 60_000);
  }
  throw new DomainError(
    'BAD_USER_INPUT',
    `${argument} must be an ISO 8601 time such as 2026-03-01T12:00:00Z, or a day such as 2026-03-01, from 1970 on`,
    { field: argument },
  );
}

function faultFilter(args: WorkflowFaultArgs): WorkflowFaultFilter {
  const workflow = optionalArgument(args.workflow, 'workflow', WORKFLOW_MAX_LENGTH);
  const since = parseTime(args.since, 'since');
  const until = parseTime(args.until, 'until');
  if (since !== undefined && until !== undefined && since > until) {
    throw new DomainError('BAD_USER_INPUT', 'until must be the same time as since or later', { field: 'until' });
  }
  return {
    ...(workflow === undefined ? {} : { workflow }),
    ...(since === undefined ? {} : { since }),
    ...(until === undefined ? {} : { until }),
  };
}

export const workflowResolvers: Resolvers = {
  Query: {
    /** Newest first, by id, like orders: faults recorded while paging sort before the first page. */
    workflowFaults: staffField(async (args, { tx }) => {
      const filter = faultFilter(args);
      const size = pageSize(args.first);
      const beforeId = decodeCursor(CURSOR_KIND, args.after);
      const rows = await workflowFaults(tx, filter, { take: size + 1, ...(beforeId === undefined ? {} : { beforeId }) });
      return pageOf(CURSOR_KIND, rows, size, workflowFaultView);
    }),
  },
};
