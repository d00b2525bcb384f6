/** A time as every GraphQL answer carries it: ISO 8601 in UTC (`2026-11-29T13:27:06.000Z`); no time stays null. */
export function iso(date: Date): string;
export function iso(date: Date | null): string | null;
export function iso(date: Date | null): string | null {
  return date === null ? null : date.toISOString();
}
