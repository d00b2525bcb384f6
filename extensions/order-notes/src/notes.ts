import { DomainError, type Tx } from '@shop/domain/kernel';

export interface OrderNote {
  readonly id: string;
  readonly orderId: string;
  readonly body: string;
  readonly authorStaffUserId: string | null;
  readonly createdAt: string;
}

interface NoteRow {
  id: bigint;
  order_id: bigint;
  body: string;
  author_staff_user_id: bigint | null;
  created_at: Date;
}

const noteOf = (row: NoteRow): OrderNote => ({
  id: row.id.toString(),
  orderId: row.order_id.toString(),
  body: row.body,
  authorStaffUserId: row.author_staff_user_id?.toString() ?? null,
  createdAt: row.created_at.toISOString(),
});

/** What the column holds: the `max_note_length` setting may only lower it. */
const MAX_BODY = 2000;

/** Adds a note to an existing order; `author` is null for the notes the extension writes itself. `maxLength` may only lower the column's limit. */
export async function addNote(
  tx: Tx,
  orderId: bigint,
  body: string,
  author: bigint | null,
  maxLength: number | null = MAX_BODY,
): Promise<OrderNote> {
  const limit = Math.min(maxLength ?? MAX_BODY, MAX_BODY);
  const text = body.trim();
  if (text === '' || text.length > limit)
    throw new DomainError('BAD_USER_INPUT', `body must be 1 to ${limit} characters`, { field: 'body' });
  // The one character of a JavaScript string PostgreSQL text cannot hold.
  if (text.includes('\u0000'))
    throw new DomainError('BAD_USER_INPUT', 'body must not contain the NUL character (U+0000)', { field: 'body' });
  const rows = await tx.$queryRaw<NoteRow[]>`
    INSERT INTO order_notes (order_id, body, author_staff_user_id)
    SELECT id, ${text}, ${author} FROM orders WHERE id = ${orderId}
    RETURNING id, order_id, body, author_staff_user_id, created_at`;
  const [row] = rows;
  if (row === undefined) throw new DomainError('NOT_FOUND', `order ${orderId} does not exist`, { orderId: orderId.toString() });
  return noteOf(row);
}

/** The order's notes, oldest first. */
export async function notesOf(tx: Tx, orderId: bigint): Promise<OrderNote[]> {
  const rows = await tx.$queryRaw<NoteRow[]>`
    SELECT id, order_id, body, author_staff_user_id, created_at FROM order_notes WHERE order_id = ${orderId} ORDER BY id`;
  return rows.map(noteOf);
}
