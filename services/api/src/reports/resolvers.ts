import { DomainError } from '@shop/domain/kernel';
import {
  isUtcDay,
  TRACKED_ENTITY_TYPES,
  trackingReport,
  type TrackedEntityType,
  type TrackingReportKey,
  type TrackingReportRow,
} from '@shop/domain/tracking';
import type { Resolvers } from '../graphql/generated/resolver-types.ts';
import { parseIds } from '../graphql/ids.ts';
import { staffRead } from '../graphql/staff-fields.ts';

/** Reports page by more rows than the other lists: 92 days of a few entities is a few hundred rows. */
const DEFAULT_REPORT_PAGE = 100;
const MAX_REPORT_PAGE = 1_000;
const CURSOR_KIND = 'tracking-report';

/** Opaque to clients: base64url of `tracking-report:<day>:<entity type>:<entity id>`, the last row's key. */
function encodeReportCursor(key: TrackingReportKey): string {
  return Buffer.from(`${CURSOR_KIND}:${key.day}:${key.entityType}:${key.entityId}`).toString('base64url');
}

function decodeReportCursor(cursor: string | null | undefined): TrackingReportKey | undefined {
  if (cursor == null) return undefined;
  const [kind, day, entityType, entityId] = cursor.length <= 128 ? Buffer.from(cursor, 'base64url').toString('utf8').split(':') : [];
  const valid =
    kind === CURSOR_KIND &&
    day !== undefined &&
    isUtcDay(day) &&
    TRACKED_ENTITY_TYPES.includes(entityType as TrackedEntityType) &&
    entityId !== undefined &&
    /^[1-9][0-9]{0,18}$/.test(entityId) &&
    BigInt(entityId) < 2n ** 63n;
  if (!valid)
    throw new DomainError('BAD_USER_INPUT', 'after must be an endCursor this API returned for a tracking report', { field: 'after' });
  return { day, entityType: entityType as TrackedEntityType, entityId: BigInt(entityId) };
}

function reportPageSize(first: number | null | undefined): number {
  const size = first ?? DEFAULT_REPORT_PAGE;
  if (!Number.isInteger(size) || size < 1 || size > MAX_REPORT_PAGE) {
    throw new DomainError('BAD_USER_INPUT', `first must be a whole number from 1 to ${MAX_REPORT_PAGE}`, { field: 'first' });
  }
  return size;
}

const rowView = (row: TrackingReportRow) => ({ ...row, entityId: row.entityId.toString() });

export const reportResolvers: Resolvers = {
  Query: {
    // It rolls settled days up in transactions of its own before reading.
    trackingReport: staffRead(async (args, _staff, context) => {
      const { prisma, deps } = context.shop.services;
      const first = reportPageSize(args.first);
      const page = await trackingReport(
        prisma,
        {
          from: args.from,
          to: args.to,
          entityType: args.entityType ?? undefined,
          entityIds: args.entityIds == null ? undefined : parseIds(args.entityIds, 'entityIds'),
          first,
          after: decodeReportCursor(args.after),
        },
        deps.now(),
      );
      const last = page.rows.at(-1);
      return {
        nodes: page.rows.map(rowView),
        pageInfo: { endCursor: last === undefined ? null : encodeReportCursor(last), hasNextPage: page.hasNextPage },
      };
    }),
  },
};
