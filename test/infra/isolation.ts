// Per-test-file isolation on the shared servers: a database of its own, unique key prefixes and topics,
// a Temporal namespace of its own.
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import pg from 'pg';
import { inject } from 'vitest';
import { eventually } from '../support/wait.ts';

export interface TestDatabase {
  readonly url: string;
  readonly name: string;
  /** Terminates its connections and drops it. */
  drop(): Promise<void>;
}

// Random per module instance: vitest evaluates this module afresh in every test file.
const fileToken = randomBytes(4).toString('hex');
let counter = 0;

/** A name unique to this test file and run, for redis key prefixes and kafka topic names: `${prefix}_<random>_<n>`. */
export function uniqueName(prefix: string): string {
  counter += 1;
  return `${prefix}_${fileToken}_${counter}`;
}

async function withAdminClient<T>(use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: inject('postgresUrl') });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** Creates a fresh database on the shared PostgreSQL server and returns its URL. */
export async function createTestDatabase(prefix = 'test'): Promise<TestDatabase> {
  // Postgres identifiers: lower case, at most 63 bytes; the unique suffix is kept whole.
  const safePrefix = prefix
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_')
    .slice(0, 40);
  const name = uniqueName(safePrefix);
  const quoted = pg.escapeIdentifier(name);
  await withAdminClient((client) => client.query(`CREATE DATABASE ${quoted}`));
  const url = new URL(inject('postgresUrl'));
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: async () => {
      await withAdminClient((client) => client.query(`DROP DATABASE IF EXISTS ${quoted} WITH (FORCE)`));
    },
  };
}

/**
 * Ends a pool and waits until each of its connections has closed. `pool.end()` answers before they
 * have, and a database dropped WITH (FORCE) meanwhile makes a closing connection emit an error that
 * nothing listens to any more: an uncaught exception that fails the whole run.
 */
export async function endPool(pool: pg.Pool): Promise<void> {
  const closing = pool.totalCount;
  let closed = 0;
  const allClosed = new Promise<void>((resolve) => {
    if (closing === 0) resolve();
    pool.on('remove', () => {
      closed += 1;
      if (closed >= closing) resolve();
    });
  });
  await pool.end();
  await allClosed;
}

/**
 * Registers a fresh namespace on the shared Temporal server and returns its name once it takes
 * requests (a new namespace reaches every service of the server after a moment). Workflow ids are
 * unique per namespace, so test files whose databases both hold an order 1 never share
 * `order-lifecycle-1`. Namespaces are kept until the server goes: they cannot be deleted at once.
 */
export async function createTestNamespace(prefix = 'test', temporalAddress = inject('temporalAddress')): Promise<string> {
  const namespace = uniqueName(prefix.toLowerCase().replace(/[^a-z0-9_-]/g, '_'));
  const connection = await Connection.connect({ address: temporalAddress });
  try {
    await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
    const client = new Client({ connection, namespace });
    try {
      await eventually(
        async () => {
          for await (const _execution of client.workflow.list({ pageSize: 1 })) break;
          for await (const _schedule of client.schedule.list({ pageSize: 1 })) break;
        },
        { timeoutMs: 30_000, intervalMs: 200 },
      );
    } catch (error) {
      throw new Error(`namespace ${namespace} was registered but did not take requests within 30 s`, { cause: error });
    }
    return namespace;
  } finally {
    await connection.close();
  }
}
