// The money audit (`npm run money:audit`, and after every money test file): SQL checks of the books'
// invariants, each answering the rows that break it (docs/money.md § Invariants and the audit).
import { Prisma } from '@shop/platform';
import type { Tx } from '../kernel/index.ts';

export interface MoneyCheck {
  readonly name: string;
  /** What holds when the check passes, in one line. */
  readonly invariant: string;
  /** The rows breaking it: the first column identifies the row. */
  readonly offending: Prisma.Sql;
}

export interface MoneyCheckResult {
  readonly check: MoneyCheck;
  readonly rows: readonly Record<string, string>[];
}

// What each tender took and gave back according to its own money records: a card's gateway movements
// (tender_events), a gift card or store credit tender's ledger debit, and every ledger credit that gave
// its money back (a refund's `refund:{refundId}`, a cancellation's `credit:cancel:{tenderId}`).
const TENDER_BOOKS = Prisma.sql`
  tender_books AS (
    SELECT t.id AS tender_id,
           CASE WHEN t.kind = 'CARD'
                THEN (SELECT coalesce(sum(e.amount), 0) FROM tender_events e WHERE e.tender_id = t.id AND e.kind = 'CAPTURED')
                ELSE (SELECT coalesce(sum(s.amount), 0) FROM store_credit_entries s
                       WHERE s.idempotency_key = t.idempotency_key AND s.kind = 'DEBIT' AND s.status = 'POSTED')
           END AS taken,
           (SELECT coalesce(sum(e.amount), 0) FROM tender_events e WHERE e.tender_id = t.id AND e.kind = 'REFUNDED')
           + (SELECT coalesce(sum(s.amount), 0) FROM store_credit_entries s
               WHERE s.kind = 'CREDIT' AND s.status = 'POSTED'
                 AND (s.idempotency_key = 'credit:cancel:' || t.id
                      OR s.idempotency_key IN (SELECT 'refund:' || r.id FROM refunds r WHERE r.tender_id = t.id))) AS given_back
      FROM payment_tenders t
  )`;

// Each settled refund's money record: a card refund's REFUNDED movement (`refund:{refundId}:{attempt}`)
// or a ledger credit (`refund:{refundId}`).
const REFUND_RECORDS = Prisma.sql`
  refund_records AS (
    SELECT split_part(e.idempotency_key, ':', 2)::bigint AS refund_id, e.amount
      FROM tender_events e WHERE e.kind = 'REFUNDED' AND e.idempotency_key ~ '^refund:[0-9]+:[0-9]+$'
    UNION ALL
    SELECT split_part(s.idempotency_key, ':', 2)::bigint, s.amount
      FROM store_credit_entries s WHERE s.kind = 'CREDIT' AND s.idempotency_key ~ '^refund:[0-9]+$'
  )`;

export const MONEY_CHECKS: readonly MoneyCheck[] = [
  {
    name: 'tender_refunds_within_capture',
    invariant: 'per tender, settled refunds ≤ refunded ≤ captured, and refunded plus the refunds under way or failed ≤ captured',
    offending: Prisma.sql`
      SELECT t.id AS tender_id, t.order_id, t.kind, t.captured_amount AS captured, t.refunded_amount AS refunded,
             coalesce(sum(r.amount) FILTER (WHERE r.status = 'SUCCEEDED'), 0) AS settled_refunds,
             coalesce(sum(r.amount) FILTER (WHERE r.status IN ('REQUESTED', 'PENDING', 'FAILED')), 0) AS open_refunds
        FROM payment_tenders t LEFT JOIN refunds r ON r.tender_id = t.id
       GROUP BY t.id
      HAVING coalesce(sum(r.amount) FILTER (WHERE r.status = 'SUCCEEDED'), 0) > t.refunded_amount
          OR t.refunded_amount > t.captured_amount
          OR t.refunded_amount + coalesce(sum(r.amount) FILTER (WHERE r.status IN ('REQUESTED', 'PENDING', 'FAILED')), 0) > t.captured_amount
       ORDER BY t.id`,
  },
  {
    name: 'order_matches_books',
    invariant:
      "per order, its tenders' captured and refunded equal what the gateway movements and the ledger took and gave back, and captured ≤ total",
    offending: Prisma.sql`
      WITH ${TENDER_BOOKS}
      SELECT o.id AS order_id, o.number, o.status, o.total,
             sum(t.captured_amount) AS tenders_captured, sum(b.taken) AS books_taken,
             sum(t.refunded_amount) AS tenders_refunded, sum(b.given_back) AS books_given_back
        FROM orders o JOIN payment_tenders t ON t.order_id = o.id JOIN tender_books b ON b.tender_id = t.id
       GROUP BY o.id
      HAVING sum(t.captured_amount) <> sum(b.taken) OR sum(t.refunded_amount) <> sum(b.given_back) OR sum(t.captured_amount) > o.total
       ORDER BY o.id`,
  },
  {
    name: 'store_credit_balance_within_overdraft',
    invariant:
      'per store credit account or gift card, the balance (posted credits less pending and posted debits) is ≥ 0, or ≥ minus its open overdraft drafts',
    offending: Prisma.sql`
      SELECT a.id AS account_id, a.customer_id, a.code IS NOT NULL AS gift_card, a.currency,
             coalesce((SELECT sum(CASE WHEN s.kind = 'CREDIT' THEN s.amount ELSE -s.amount END) FROM store_credit_entries s
                        WHERE s.account_id = a.id AND (s.status = 'POSTED' OR (s.kind = 'DEBIT' AND s.status = 'PENDING'))), 0) AS balance,
             coalesce((SELECT sum(d.amount) FROM store_credit_overdraft_drafts d WHERE d.account_id = a.id AND d.status = 'DRAFT'), 0) AS open_overdraft
        FROM store_credit_accounts a
       WHERE coalesce((SELECT sum(CASE WHEN s.kind = 'CREDIT' THEN s.amount ELSE -s.amount END) FROM store_credit_entries s
                        WHERE s.account_id = a.id AND (s.status = 'POSTED' OR (s.kind = 'DEBIT' AND s.status = 'PENDING'))), 0)
           < -coalesce((SELECT sum(d.amount) FROM store_credit_overdraft_drafts d WHERE d.account_id = a.id AND d.status = 'DRAFT'), 0)
       ORDER BY a.id`,
  },
  {
    name: 'store_credit_entries_match_drafts',
    invariant:
      "a PENDING entry is a debit held by an open overdraft draft of its amount and account; a VOIDED one an expired draft's; a POSTED one has no draft",
    offending: Prisma.sql`
      SELECT s.id AS entry_id, s.account_id, s.kind, s.status, s.amount, d.id AS draft_id, d.status AS draft_status, d.amount AS draft_amount
        FROM store_credit_entries s LEFT JOIN store_credit_overdraft_drafts d ON d.entry_id = s.id
       WHERE (s.status = 'PENDING' AND (d.id IS NULL OR d.status <> 'DRAFT' OR s.kind <> 'DEBIT' OR d.amount <> s.amount OR d.account_id <> s.account_id))
          OR (s.status = 'VOIDED' AND (d.id IS NULL OR d.status <> 'EXPIRED'))
          OR (s.status = 'POSTED' AND d.id IS NOT NULL)
       ORDER BY s.id`,
  },
  {
    name: 'cancelled_order_holds_no_money',
    invariant: 'no cancelled order keeps a capture it has not given back, nor a card authorization past its expiry',
    offending: Prisma.sql`
      SELECT t.id AS tender_id, o.id AS order_id, o.number, t.kind, t.status, t.captured_amount - t.refunded_amount AS kept,
             t.authorization_expires_at
        FROM payment_tenders t JOIN orders o ON o.id = t.order_id
       WHERE o.status = 'CANCELLED'
         AND (t.captured_amount > t.refunded_amount OR (t.kind = 'CARD' AND t.status = 'AUTHORIZED' AND t.authorization_expires_at <= now()))
       ORDER BY t.id`,
  },
  {
    name: 'refunded_return_refunds_succeeded',
    invariant: 'every refund request of a REFUNDED return SUCCEEDED',
    offending: Prisma.sql`
      SELECT ra.id AS return_id, ra.order_id, rr.id AS refund_request_id, rr.status AS request_status
        FROM return_authorizations ra JOIN refund_requests rr ON rr.rma_id = ra.id
       WHERE ra.status = 'REFUNDED' AND rr.status <> 'SUCCEEDED'
       ORDER BY ra.id, rr.id`,
  },
  {
    name: 'refund_request_matches_refunds',
    invariant: "a refund request's refunds (cancelled ones left out) add up to its amount, and a SUCCEEDED request's all succeeded",
    offending: Prisma.sql`
      SELECT rr.id AS refund_request_id, rr.order_id, rr.status, rr.amount,
             coalesce(sum(r.amount) FILTER (WHERE r.status <> 'CANCELED'), 0) AS refunds_amount,
             count(r.id) FILTER (WHERE r.status IN ('REQUESTED', 'PENDING', 'FAILED')) AS refunds_not_settled
        FROM refund_requests rr LEFT JOIN refunds r ON r.refund_request_id = rr.id
       GROUP BY rr.id
      HAVING coalesce(sum(r.amount) FILTER (WHERE r.status <> 'CANCELED'), 0) <> rr.amount
          OR (rr.status = 'SUCCEEDED' AND count(r.id) FILTER (WHERE r.status IN ('REQUESTED', 'PENDING', 'FAILED')) > 0)
       ORDER BY rr.id`,
  },
  {
    name: 'settled_refund_recorded_once',
    invariant:
      'a SUCCEEDED refund has exactly one money record of its amount (a gateway refund or a ledger credit); any other refund has none',
    offending: Prisma.sql`
      WITH ${REFUND_RECORDS}
      SELECT r.id AS refund_id, r.tender_id, r.status, r.amount, count(m.refund_id) AS records, coalesce(sum(m.amount), 0) AS recorded_amount
        FROM refunds r LEFT JOIN refund_records m ON m.refund_id = r.id
       GROUP BY r.id
      HAVING count(m.refund_id) <> CASE WHEN r.status = 'SUCCEEDED' THEN 1 ELSE 0 END
          OR coalesce(sum(m.amount), 0) <> CASE WHEN r.status = 'SUCCEEDED' THEN r.amount ELSE 0 END
       ORDER BY r.id`,
  },
  {
    name: 'gateway_key_used_once',
    invariant:
      "each gateway movement is sent under its own tender's key (authorization, capture:{tender}, void:{tender}, refund:cancel:{tender}, refund:{refund of the tender}:{attempt}) and each gateway operation is recorded once",
    offending: Prisma.sql`
      SELECT e.id AS event_id, e.tender_id, e.kind, e.idempotency_key, e.gateway_operation_id,
             count(*) OVER (PARTITION BY e.gateway_operation_id, e.kind) AS times_recorded
        FROM tender_events e JOIN payment_tenders t ON t.id = e.tender_id
       WHERE NOT CASE e.kind
               WHEN 'AUTHORIZED' THEN e.idempotency_key = t.idempotency_key
               WHEN 'CAPTURED' THEN e.idempotency_key = 'capture:' || t.id
               WHEN 'VOIDED' THEN e.idempotency_key = 'void:' || t.id
               ELSE e.idempotency_key = 'refund:cancel:' || t.id
                 OR EXISTS (SELECT 1 FROM refunds r WHERE r.tender_id = t.id AND e.idempotency_key = 'refund:' || r.id || ':' || r.attempt)
             END
          OR e.gateway_operation_id IN (SELECT gateway_operation_id FROM tender_events x WHERE x.kind = e.kind GROUP BY gateway_operation_id HAVING count(*) > 1)
       ORDER BY e.id`,
  },
];

const text = (value: unknown): string => {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Prisma.Decimal) return value.toFixed(2); // amounts are numeric(12, 2)
  return String(value);
};

/** Runs every check on `db` (give it a REPEATABLE READ transaction for one snapshot of the books). */
export async function auditMoney(db: Tx): Promise<MoneyCheckResult[]> {
  const results: MoneyCheckResult[] = [];
  for (const check of MONEY_CHECKS) {
    const rows = await db.$queryRaw<Record<string, unknown>[]>(check.offending);
    results.push({
      check,
      rows: rows.map((row) => Object.fromEntries(Object.entries(row).map(([column, value]) => [column, text(value)]))),
    });
  }
  return results;
}

/** The results that found offending rows. */
export const failedChecks = (results: readonly MoneyCheckResult[]): MoneyCheckResult[] =>
  results.filter((result) => result.rows.length > 0);

function table(rows: readonly Record<string, string>[]): string[] {
  const columns = Object.keys(rows[0] ?? {});
  const widths = columns.map((column) => Math.max(column.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]) => `  ${cells.map((cell, index) => cell.padEnd(widths[index] ?? 0)).join(' | ')}`.trimEnd();
  return [
    line(columns),
    `  ${widths.map((width) => '-'.repeat(width)).join('-+-')}`,
    ...rows.map((row) => line(columns.map((column) => row[column] ?? ''))),
  ];
}

/** One line per check (`ok` or `FAILED` with its row count), each failure followed by its rows as a table. */
export function formatMoneyAudit(results: readonly MoneyCheckResult[]): string {
  const lines: string[] = [];
  for (const { check, rows } of results) {
    if (rows.length === 0) {
      lines.push(`ok      ${check.name}: ${check.invariant}`);
      continue;
    }
    lines.push(`FAILED  ${check.name}: ${check.invariant} (${rows.length} ${rows.length === 1 ? 'row' : 'rows'})`, ...table(rows));
  }
  const failed = failedChecks(results).length;
  lines.push(failed === 0 ? `all ${results.length} money checks hold` : `${failed} of ${results.length} money checks failed`);
  return lines.join('\n');
}
