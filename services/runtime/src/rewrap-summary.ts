import { jsonObjectOf } from './json-object.ts';

/**
 * What the rewrap command leaves in its container's termination message (the Job sets
 * --summary-file=/dev/termination-log): the rows of stored secrets per master key id once it ended.
 * Here rather than in @shop/platform because the Shop operator, which has no database access, reads
 * it from the finished pod to report rows per key.
 */
export interface RewrapSummary {
  /** When the rows were counted, ISO 8601. */
  readonly countedAt: string;
  readonly rowsPerKeyId: Readonly<Record<string, number>>;
}

/** The kubelet keeps at most 4096 bytes of a termination message; a longer one would be cut into invalid JSON. */
const TERMINATION_MESSAGE_MAX_BYTES = 4096;

export function formatRewrapSummary(rowsPerKeyId: ReadonlyMap<string, number>, countedAt: Date): string {
  const text = JSON.stringify({
    countedAt: countedAt.toISOString(),
    rowsPerKeyId: Object.fromEntries(rowsPerKeyId),
  } satisfies RewrapSummary);
  const bytes = Buffer.byteLength(text);
  if (bytes > TERMINATION_MESSAGE_MAX_BYTES)
    throw new Error(
      `the rewrap summary of ${rowsPerKeyId.size} key ids takes ${bytes} bytes, more than a termination message holds (${TERMINATION_MESSAGE_MAX_BYTES})`,
    );
  return text;
}

/** The summary in `text`, or undefined when it is not one (e.g. the message of a container that died before writing it). */
export function parseRewrapSummary(text: string): RewrapSummary | undefined {
  const parsed = jsonObjectOf(text);
  if (parsed === undefined) return undefined;
  const { countedAt, rowsPerKeyId } = parsed;
  if (typeof countedAt !== 'string' || Number.isNaN(Date.parse(countedAt))) return undefined;
  if (typeof rowsPerKeyId !== 'object' || rowsPerKeyId === null || Array.isArray(rowsPerKeyId)) return undefined;
  const counts = Object.entries(rowsPerKeyId);
  if (!counts.every(([, rows]) => Number.isSafeInteger(rows) && (rows as number) >= 0)) return undefined;
  return { countedAt, rowsPerKeyId: Object.fromEntries(counts) as Record<string, number> };
}
