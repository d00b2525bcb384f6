// How the operator benchmark reports: one JSON line per figure on stdout, diagnostics on stderr.

export interface Figure {
  readonly figure: string;
  readonly value: number;
  readonly unit: string;
  /** E.g. `< 2`; null for a figure with no goal (a baseline, a share). */
  readonly goal: string | null;
  readonly meets_goal: boolean | null;
  readonly [detail: string]: unknown;
}

export function emit(figure: Figure): void {
  process.stdout.write(`${JSON.stringify({ bench: 'operator', ...figure })}\n`);
}

/** Diagnostics, not figures: stderr, so stdout stays one JSON line per figure. */
export function note(message: string, fields: Record<string, unknown> = {}): void {
  process.stderr.write(`[bench operator] ${message}${Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : ''}\n`);
}

export const seconds = (ms: number): number => Math.round(ms / 10) / 100;
export const round1 = (value: number): number => Math.round(value * 10) / 10;

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}
