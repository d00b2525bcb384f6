import { createHmac } from 'node:crypto';
import type { Tx } from '@shop/domain/kernel';

export interface OrderNotesDigest {
  readonly workflowId: string;
  readonly periodEnd: string;
  readonly notes: number;
  readonly signature: string | null;
}

interface DigestRow {
  workflow_id: string;
  period_end: Date;
  notes: number;
  signature: string | null;
}

const digestOf = (row: DigestRow): OrderNotesDigest => ({
  workflowId: row.workflow_id,
  periodEnd: row.period_end.toISOString(),
  notes: row.notes,
  signature: row.signature,
});

/** What a digest's signature covers. */
export const signedText = (workflowId: string, periodEnd: Date, notes: number): string =>
  `${workflowId}|${periodEnd.toISOString()}|${notes}`;

/**
 * Records the notes written after the previous digest's end up to `asOf`, signed with `signingKey` when
 * there is one. Keyed by the run's workflow id: called again for the same run, it answers the row it wrote.
 */
export async function writeDigest(tx: Tx, input: { workflowId: string; asOf: Date; signingKey: string | null }): Promise<OrderNotesDigest> {
  const { workflowId, asOf, signingKey } = input;
  const [written] = await tx.$queryRaw<
    DigestRow[]
  >`SELECT workflow_id, period_end, notes, signature FROM order_note_digests WHERE workflow_id = ${workflowId}`;
  if (written !== undefined) return digestOf(written);
  const [counted] = await tx.$queryRaw<Array<{ notes: number }>>`
    SELECT count(*)::int AS notes FROM order_notes
    WHERE created_at <= ${asOf} AND created_at > coalesce((SELECT max(period_end) FROM order_note_digests WHERE period_end < ${asOf}), '-infinity')`;
  const notes = counted?.notes ?? 0;
  const signature =
    signingKey === null
      ? null
      : createHmac('sha256', signingKey)
          .update(signedText(workflowId, asOf, notes))
          .digest('hex');
  const [row] = await tx.$queryRaw<DigestRow[]>`
    INSERT INTO order_note_digests (workflow_id, period_end, notes, signature) VALUES (${workflowId}, ${asOf}, ${notes}, ${signature})
    RETURNING workflow_id, period_end, notes, signature`;
  if (row === undefined) throw new Error(`the digest of ${workflowId} was not written`);
  return digestOf(row);
}
