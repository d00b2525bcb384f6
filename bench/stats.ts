// The small statistics every benchmark reports with.

/** `value` with at most `digits` decimals. */
export const round = (value: number, digits = 2): number => Math.round(value * 10 ** digits) / 10 ** digits;

/** The nearest-rank percentile of values sorted in ascending order; NaN when there are none. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

/** The middle value, or the mean of the two middle ones; NaN when there are none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
