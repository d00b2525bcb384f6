// Driver adapters through which the WASM schema engine reaches a database. Both run a migration script the way the
// native engine does: as one simple-protocol query, which PostgreSQL executes as a single implicit transaction.
import { PGlite, type ParserOptions } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import {
  ColumnTypeEnum,
  DriverAdapterError,
  type ColumnType,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils';
import type pg from 'pg';

type PrismaPgAdapter = Awaited<ReturnType<PrismaPg['connect']>>;

/**
 * PostgreSQL through @prisma/adapter-pg. Its own executeScript splits the script on ";" and sends the pieces one by
 * one, which breaks literals and function bodies containing ";" and leaves earlier statements applied when a later one
 * fails; here the whole script goes to the server as one query instead.
 */
export function postgresAdapter(connection: string | pg.Pool | pg.PoolConfig): SqlMigrationAwareDriverAdapterFactory {
  const factory = new PrismaPg(connection);
  const withAtomicScripts = (adapter: PrismaPgAdapter): PrismaPgAdapter => {
    adapter.executeScript = async (script) => {
      await throwingDriverAdapterErrors(() => adapter.underlyingDriver().query(script));
    };
    return adapter;
  };
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => withAtomicScripts(await factory.connect()),
    connectToShadowDb: async () => withAtomicScripts(await factory.connectToShadowDb()),
  };
}

/** An in-process PGlite database; each shadow database the engine asks for is a fresh in-memory PGlite. */
export function pgliteAdapter(db: PGlite): SqlMigrationAwareDriverAdapterFactory {
  return {
    provider: 'postgres',
    adapterName: 'pglite',
    // The caller owns `db` and closes it.
    connect: async () => pgliteConnection(db, async () => {}),
    connectToShadowDb: async () => {
      const shadow = new PGlite();
      return pgliteConnection(shadow, () => shadow.close());
    },
  };
}

function pgliteConnection(db: PGlite, dispose: () => Promise<void>): SqlDriverAdapter {
  return {
    provider: 'postgres',
    adapterName: 'pglite',
    queryRaw: async ({ sql, args }) => {
      const result = await throwingDriverAdapterErrors(() => db.query<unknown[]>(sql, args, { rowMode: 'array', parsers: engineParsers }));
      return {
        columnNames: result.fields.map((field) => field.name),
        columnTypes: result.fields.map((field) => columnTypes[field.dataTypeID] ?? ColumnTypeEnum.Text),
        rows: result.rows,
      };
    },
    executeRaw: async ({ sql, args }) => (await throwingDriverAdapterErrors(() => db.query(sql, args))).affectedRows ?? 0,
    executeScript: async (script) => {
      await throwingDriverAdapterErrors(() => db.exec(script));
    },
    startTransaction: () => Promise.reject(new Error('pgliteAdapter has no interactive transactions; the schema engine needs none')),
    getConnectionInfo: () => ({ supportsRelationJoins: true }),
    dispose,
  };
}

// The engine expects these as the strings @prisma/adapter-pg delivers, not as the numbers, objects and Dates PGlite
// would make of them.
const asText = (value: string): string => value;
const engineParsers: ParserOptions = {
  20: asText, // int8
  114: asText, // json
  3802: asText, // jsonb
  1082: asText, // date
  1083: asText, // time
  1114: (value: string) => `${value.replace(' ', 'T')}+00:00`, // timestamp
  1184: (value: string) => value.replace(' ', 'T').replace(/[+-]\d{2}(:\d{2})?$/, '+00:00'), // timestamptz
};

// Types of the values PGlite returns per column type OID; any other type comes back as its text form. "char" (18),
// which the engine's introspection queries read from pg_catalog, is why diffing through @prisma/adapter-pg fails
// ("Column type 'char' could not be deserialized") and why this adapter maps it itself.
const columnTypes: Partial<Record<number, ColumnType>> = {
  16: ColumnTypeEnum.Boolean,
  17: ColumnTypeEnum.Bytes,
  18: ColumnTypeEnum.Character,
  20: ColumnTypeEnum.Int64,
  21: ColumnTypeEnum.Int32,
  23: ColumnTypeEnum.Int32,
  26: ColumnTypeEnum.Int64,
  114: ColumnTypeEnum.Json,
  700: ColumnTypeEnum.Float,
  701: ColumnTypeEnum.Double,
  1000: ColumnTypeEnum.BooleanArray,
  1002: ColumnTypeEnum.CharacterArray,
  1003: ColumnTypeEnum.TextArray,
  1005: ColumnTypeEnum.Int32Array,
  1007: ColumnTypeEnum.Int32Array,
  1009: ColumnTypeEnum.TextArray,
  1015: ColumnTypeEnum.TextArray,
  1082: ColumnTypeEnum.Date,
  1083: ColumnTypeEnum.Time,
  1114: ColumnTypeEnum.DateTime,
  1184: ColumnTypeEnum.DateTime,
  3802: ColumnTypeEnum.Json,
};

/** The engine recognises database errors (e.g. "relation does not exist") only in this shape. */
async function throwingDriverAdapterErrors<T>(query: () => Promise<T>): Promise<T> {
  try {
    return await query();
  } catch (error) {
    if (!isDatabaseError(error)) throw error;
    const { code, severity, message, detail, column, hint } = error;
    throw new DriverAdapterError({ kind: 'postgres', code, severity, message, detail, column, hint });
  }
}

interface DatabaseError extends Error {
  code: string;
  severity: string;
  detail?: string;
  column?: string;
  hint?: string;
}

function isDatabaseError(error: unknown): error is DatabaseError {
  return error instanceof Error && typeof (error as Partial<DatabaseError>).code === 'string' && 'severity' in error;
}
