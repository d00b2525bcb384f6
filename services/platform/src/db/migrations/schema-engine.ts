// Prisma's schema engine compiled to WebAssembly, driven through a driver adapter: no native binary, no download.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils';
import * as bindings from '@prisma/schema-engine-wasm/schema_engine_bg';

declare global {
  // The engine reports a Rust panic here before trapping with an opaque "unreachable".
  var PRISMA_WASM_PANIC_REGISTRY: { set_message(message: string): void };
}

// The project's lib (es2024, no DOM) declares no WebAssembly global; this is the part used here.
interface WebAssemblyApi {
  instantiate(bytes: Uint8Array, imports: object): Promise<{ instance: { exports: Record<string, unknown> } }>;
}
const { WebAssembly: webAssembly } = globalThis as unknown as { WebAssembly: WebAssemblyApi };

let lastPanic: string | undefined;
let loading: Promise<typeof bindings> | undefined;

/**
 * Instantiates the engine's WebAssembly once per process. The package entry does the same through
 * `import * as wasm from "./schema_engine_bg.wasm"`, which needs Node's experimental WebAssembly module loader (it
 * prints a warning); by hand it needs no loader support, under node or vitest alike.
 */
function loadSchemaEngine(): Promise<typeof bindings> {
  loading ??= (async () => {
    globalThis.PRISMA_WASM_PANIC_REGISTRY = { set_message: (message) => (lastPanic = message) };
    const bindingsFile = createRequire(import.meta.url).resolve('@prisma/schema-engine-wasm/schema_engine_bg');
    const wasm = await readFile(path.join(path.dirname(bindingsFile), 'schema_engine_bg.wasm'));
    const { instance } = await webAssembly.instantiate(wasm, { './schema_engine_bg.js': withUnrefTimers(bindings) });
    bindings.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
    return bindings;
  })();
  return loading;
}

/**
 * The engine arms a 10 s timeout while taking the migration advisory lock and never clears it (the bindings import no
 * clearTimeout), which kept a finished process alive for 10 s. Unref'd, the timer no longer holds the process; the
 * database query it races holds the process by itself.
 */
function withUnrefTimers(imports: typeof bindings): object {
  const setTimeoutImport = Object.keys(imports).find((name) => name.startsWith('__wbg_setTimeout_'));
  if (setTimeoutImport === undefined) return imports;
  const unrefSetTimeout = (callback: () => void, ms: number) => setTimeout(callback, ms >>> 0).unref();
  return { ...imports, [setTimeoutImport]: unrefSetTimeout };
}

export type SchemaEngine = bindings.SchemaEngine;

export interface SchemaEngineSession {
  readonly engine: SchemaEngine;
  /** The error of the last migration script that failed on the main database since the previous call, if any. */
  takeScriptFailure(): unknown;
}

export const noSchemaFilter = { externalTables: [], externalEnums: [] };

/** Runs `use` with an engine connected to the adapter's database, then frees the engine and closes the connection. */
export async function withSchemaEngine<T>(
  adapterFactory: SqlMigrationAwareDriverAdapterFactory,
  use: (session: SchemaEngineSession) => Promise<T>,
): Promise<T> {
  const { SchemaEngine } = await loadSchemaEngine();
  const connections: SqlDriverAdapter[] = [];
  let scriptFailure: unknown;
  const recordingScriptFailures = (connection: SqlDriverAdapter): SqlDriverAdapter => {
    const executeScript = connection.executeScript.bind(connection);
    connection.executeScript = async (script) => {
      try {
        await executeScript(script);
      } catch (error) {
        scriptFailure = error;
        throw error;
      }
    };
    return connection;
  };
  const factory: SqlMigrationAwareDriverAdapterFactory = {
    provider: adapterFactory.provider,
    adapterName: adapterFactory.adapterName,
    connect: async () => {
      const connection = recordingScriptFailures(await adapterFactory.connect());
      connections.push(connection);
      return connection;
    },
    // The engine disposes shadow databases itself.
    connectToShadowDb: () => adapterFactory.connectToShadowDb(),
  };
  const takeScriptFailure = (): unknown => {
    const failure = scriptFailure;
    scriptFailure = undefined;
    return failure;
  };

  try {
    const ignoreEngineLogs = (): void => {};
    const engine = await SchemaEngine.new({ datamodels: undefined }, ignoreEngineLogs, bindMigrationAwareSqlAdapterFactory(factory));
    try {
      return await use({ engine, takeScriptFailure });
    } finally {
      engine.free();
    }
  } catch (error) {
    if (error instanceof Error && error.name === 'RuntimeError' && lastPanic !== undefined) {
      throw new Error(`Prisma schema engine panicked: ${lastPanic}`, { cause: error });
    }
    throw error;
  } finally {
    await Promise.all(connections.map((connection) => connection.dispose()));
  }
}
