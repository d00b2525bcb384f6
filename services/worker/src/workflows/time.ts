// Time arithmetic of the workflows, on the workflow's deterministic clock (Date.now() in a workflow).

const HOUR_MS = 60 * 60 * 1000;

/** The ISO instant `hours` after `instant`. */
export const hoursAfter = (instant: string, hours: number): string => new Date(Date.parse(instant) + hours * HOUR_MS).toISOString();

/** Milliseconds from now until `instant`; 0 once it has passed. */
export const msUntil = (instant: string): number => Math.max(0, Date.parse(instant) - Date.now());
