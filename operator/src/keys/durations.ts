const UNIT_MS = { h: 3_600_000, m: 60_000, s: 1_000 } as const;

/** A duration as the Shop's keyRotation fields take it: a positive whole number of hours, minutes or seconds, e.g. 720h. */
export function durationMs(text: string): number {
  const match = /^([1-9][0-9]*)(h|m|s)$/.exec(text);
  if (!match) throw new Error(`"${text}" is not a duration: a positive whole number followed by h, m or s, e.g. 720h`);
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}
