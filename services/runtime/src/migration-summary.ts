import { jsonObjectOf } from './json-object.ts';

/**
 * What the migrate command leaves in its container's termination message (the Job sets
 * --summary-file=/dev/termination-log): the schema version recorded in the database, the image's
 * version, and whether it refused to run because the schema is newer than the image. Here rather
 * than in @shop/platform because the Shop operator, which has no database access, reads it from the
 * finished pod.
 */
export interface MigrationSummary {
  /** The version recorded in the database once the command ended; undefined when none is recorded (it failed before). */
  readonly schemaVersion?: string;
  /** The version of the image that ran (the repository's package.json). */
  readonly imageVersion: string;
  /** True when the database's schema is newer than the image and the command was not told to allow it. */
  readonly downgradeRefused: boolean;
}

export function formatMigrationSummary(summary: MigrationSummary): string {
  return JSON.stringify(summary);
}

/** The summary in `text`, or undefined when it is not one (e.g. the message of a container that died before writing it). */
export function parseMigrationSummary(text: string): MigrationSummary | undefined {
  const parsed = jsonObjectOf(text);
  if (parsed === undefined) return undefined;
  const { schemaVersion, imageVersion, downgradeRefused } = parsed;
  if (typeof imageVersion !== 'string' || typeof downgradeRefused !== 'boolean') return undefined;
  if (schemaVersion !== undefined && typeof schemaVersion !== 'string') return undefined;
  return { imageVersion, downgradeRefused, ...(schemaVersion === undefined ? {} : { schemaVersion }) };
}

/**
 * The migrate command's exit when the database's schema is newer than the image (EX_DATAERR from
 * sysexits.h): running again cannot help, only a newer image or --allow-downgrade.
 */
export const EXIT_DOWNGRADE_REFUSED = 65;
