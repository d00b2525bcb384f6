// The version of the code that migrated the schema, so that an older image is not run on a schema it does not know.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { REPO_ROOT } from '../../repository.ts';
import { MigrationError } from './errors.ts';

/** One row: the greatest package version whose migrate command ran on this database. */
const TABLE = '_shop_schema_version';

/** The database's schema is newer than the image about to run on it. */
export class DowngradeRefusedError extends MigrationError {
  override name = 'DowngradeRefusedError';
  readonly schemaVersion: string;
  readonly imageVersion: string;

  constructor(schemaVersion: string, imageVersion: string) {
    super(
      `the database schema was migrated by version ${schemaVersion}, newer than this image's ${imageVersion}: ` +
        'refusing to run older code on a newer schema; deploy a version at least as new, or pass --allow-downgrade',
    );
    this.schemaVersion = schemaVersion;
    this.imageVersion = imageVersion;
  }
}

/** The version in the repository's package.json: the version of the image this runs in. */
export async function imageVersion(): Promise<string> {
  const { version } = JSON.parse(await readFile(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version?: unknown };
  if (typeof version !== 'string' || parseVersion(version) === undefined)
    throw new MigrationError(`package.json has no semantic version (found ${String(version)})`);
  return version;
}

export interface SchemaVersionOptions {
  /** Run even when the schema is newer than `version`; the recorded version stays the newer one. */
  readonly allowDowngrade?: boolean;
}

/**
 * Runs `migrate` (which applies the migrations of `version`) under a lock that another deploy of this
 * kind waits for, after checking that the database was not migrated by a newer version, then records
 * `version` unless a newer one is recorded. Returns the version recorded at the end.
 *
 * @throws DowngradeRefusedError when the recorded version is newer and `allowDowngrade` is not set; nothing runs.
 */
export async function withSchemaVersion(
  url: string,
  version: string,
  migrate: () => Promise<unknown>,
  options: SchemaVersionOptions = {},
): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // Held for the whole deploy: an older image must not check while a newer one migrates.
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [TABLE]);
    const recorded = await recordedSchemaVersion(client);
    if (recorded !== undefined && compareVersions(recorded, version) > 0 && !options.allowDowngrade) {
      throw new DowngradeRefusedError(recorded, version);
    }
    await migrate();
    if (recorded !== undefined && compareVersions(recorded, version) >= 0) return recorded;
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${TABLE} (only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row), version text NOT NULL, recorded_at timestamptz NOT NULL DEFAULT now())`,
    );
    await client.query(
      `INSERT INTO ${TABLE} (version) VALUES ($1) ON CONFLICT (only_row) DO UPDATE SET version = EXCLUDED.version, recorded_at = now()`,
      [version],
    );
    return version;
  } finally {
    await client.end();
  }
}

/** The version recorded by the last deploy, undefined on a database no deploy of this kind migrated yet. */
export async function recordedSchemaVersion(client: pg.ClientBase): Promise<string | undefined> {
  const { rows } = await client.query<{ table: string | null }>('SELECT to_regclass($1)::text AS table', [TABLE]);
  if (rows[0]?.table == null) return undefined;
  return (await client.query<{ version: string }>(`SELECT version FROM ${TABLE}`)).rows[0]?.version;
}

type ParsedVersion = readonly [major: number, minor: number, patch: number, prerelease: readonly string[]];

function parseVersion(version: string): ParsedVersion | undefined {
  const match = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(version);
  if (!match) return undefined;
  const [, major, minor, patch, prerelease] = match;
  return [Number(major), Number(minor), Number(patch), prerelease?.split('.') ?? []];
}

/** Semantic version precedence (semver.org §11): negative when `a` is older than `b`, 0 when equal, positive when newer. */
export function compareVersions(a: string, b: string): number {
  const [left, right] = [a, b].map((version) => {
    const parsed = parseVersion(version);
    if (!parsed) throw new MigrationError(`${version} is not a semantic version`);
    return parsed;
  }) as [ParsedVersion, ParsedVersion];
  for (let i = 0; i < 3; i += 1) {
    const difference = (left[i] as number) - (right[i] as number);
    if (difference !== 0) return Math.sign(difference);
  }
  return comparePrereleases(left[3], right[3]);
}

/** A version without a prerelease is newer than one with; identifiers compare numerically when both are numbers. */
function comparePrereleases(left: readonly string[], right: readonly string[]): number {
  if (left.length === 0 || right.length === 0) return Math.sign(right.length - left.length);
  for (let i = 0; i < Math.max(left.length, right.length); i += 1) {
    const [x, y] = [left[i], right[i]];
    if (x === undefined || y === undefined) return x === undefined ? -1 : 1;
    if (x === y) continue;
    const [xNumeric, yNumeric] = [/^\d+$/.test(x), /^\d+$/.test(y)];
    if (xNumeric && yNumeric) return Math.sign(Number(x) - Number(y));
    if (xNumeric !== yNumeric) return xNumeric ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return 0;
}
