// Schemathesis against the api process on real PostgreSQL and Redis: POST /track from its OpenAPI
// description, /graphql from its schema, as a guest and as staff. docs/fuzzing.md says what it checks.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { applyMigrations } from '@shop/platform';
import { servedSchemaSource } from '../../services/api/src/graphql/generate-resolver-types.ts';
import { DEMO_CHANNEL } from '../../services/api/src/seed.ts';
import { TRACK_OPENAPI_FILE } from '../../services/api/src/tracking/openapi.ts';
import { runApi } from '../../services/api/test/support/run-api.ts';
import { createTestDatabase, type TestDatabase } from '../infra/isolation.ts';
import { isPythonToolProvisioned, PROVISION_COMMAND, schemathesisTool } from '../infra/layout.ts';
import { graphqlCaller } from '../support/graphql-http.ts';
import { liftRateLimits } from '../support/rate-limits.ts';
import { spawnService, type ServiceProcess } from '../support/service-process.ts';

const SEED_MAIN = path.resolve(import.meta.dirname, '../../services/api/src/seed.ts');
const HOOKS = path.join(import.meta.dirname, 'schemathesis_hooks.py');
const CONFIG = path.join(import.meta.dirname, 'schemathesis.toml');
const ADMIN = { email: 'fuzz-admin@shop.test', password: 'fuzz-admin-password-1' };

/** Fixed, so a finding replays; the run's figures are in docs/fuzzing.md. */
const SEED = 16;
const MIN_REQUESTS = 10_000;
/** A request not answered within this is a hang: Schemathesis records it without a response. */
const REQUEST_TIMEOUT_SECONDS = 10;

let database: TestDatabase;
let api: ServiceProcess;
let apiUrl: string;
let workDir: string;

beforeAll(async () => {
  database = await createTestDatabase('fuzz');
  await applyMigrations(database.url);
  await liftRateLimits(database.url);
  const seed = spawnService(SEED_MAIN, {
    NODE_ENV: 'test',
    DATABASE_URL: database.url,
    SEED_ADMIN_EMAIL: ADMIN.email,
    SEED_ADMIN_PASSWORD: ADMIN.password,
  });
  const seeded = await seed.exited();
  if (seeded.code !== 0) throw new Error(`the seed failed:\n${seed.output()}`);
  api = runApi({ NODE_ENV: 'test', PORT: '0', DATABASE_URL: database.url, CACHE_URL: inject('redisUrl') });
  apiUrl = await api.listening();
  workDir = await mkdtemp(path.join(tmpdir(), 'shop-fuzz-'));
});

afterAll(async () => {
  if (api !== undefined && api.child.exitCode === null) {
    api.child.kill('SIGTERM');
    await api.exited();
  }
  await database?.drop();
  if (workDir !== undefined) await rm(workDir, { recursive: true, force: true });
});

interface FuzzRun {
  readonly name: string;
  /** The schema: a file, with `url` where its operations are sent. */
  readonly schema: string;
  readonly url: string;
  readonly maxExamples: number;
  readonly checks: string;
  readonly headers?: Record<string, string>;
}

interface Interaction {
  readonly response?: { readonly status_code: number } | null;
}

interface RunFigures {
  readonly requests: number;
  /** Requests sent that got no answer within the timeout (or no answer at all). */
  readonly unanswered: number;
  readonly byStatus: Record<string, number>;
}

/** Every request of a run, from the ScenarioFinished events of its NDJSON report. */
async function figuresOf(report: string): Promise<RunFigures> {
  const byStatus: Record<string, number> = {};
  let requests = 0;
  let unanswered = 0;
  for await (const line of createInterface({ input: createReadStream(report), crlfDelay: Infinity })) {
    if (!line.startsWith('{"ScenarioFinished"')) continue;
    const { ScenarioFinished } = JSON.parse(line) as { ScenarioFinished: { recorder: { interactions?: Record<string, Interaction> } } };
    for (const interaction of Object.values(ScenarioFinished.recorder.interactions ?? {})) {
      requests++;
      const status = interaction.response?.status_code;
      if (status === undefined) unanswered++;
      else byStatus[status] = (byStatus[status] ?? 0) + 1;
    }
  }
  return { requests, unanswered, byStatus };
}

/** Runs Schemathesis to its end; a failed check, an error or a hang makes `exitCode` non-zero. */
async function fuzz(run: FuzzRun): Promise<RunFigures & { readonly exitCode: number | null; readonly output: string }> {
  const report = path.join(workDir, `${run.name}.ndjson`);
  const args = [
    '--config-file',
    CONFIG,
    'run',
    run.schema,
    '--url',
    run.url,
    '--seed',
    String(SEED),
    '--max-examples',
    String(run.maxExamples),
    '--checks',
    run.checks,
    '--request-timeout',
    String(REQUEST_TIMEOUT_SECONDS),
    // A hang must show, not be retried away.
    '--request-retries',
    '0',
    '--generation-database',
    'none',
    '--report',
    'ndjson',
    '--report-ndjson-path',
    report,
    '--output-truncate',
    'true',
    '--no-color',
    ...Object.entries(run.headers ?? {}).flatMap(([name, value]) => ['--header', `${name}: ${value}`]),
  ];
  const child = spawn(schemathesisTool().binary, args, {
    cwd: workDir,
    // No __pycache__ beside the hooks in the repository.
    env: { PATH: process.env.PATH, HOME: process.env.HOME, SCHEMATHESIS_HOOKS: HOOKS, PYTHONDONTWRITEBYTECODE: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [exitCode] = (await once(child, 'close')) as [number | null];
  return { ...(await figuresOf(report)), exitCode, output };
}

it(
  `sends at least ${MIN_REQUESTS} generated requests to /track and /graphql and gets no 5xx and no hang`,
  async () => {
    if (!isPythonToolProvisioned(schemathesisTool())) throw new Error(`Schemathesis is not provisioned; run: ${PROVISION_COMMAND}`);
    const graphqlSchema = path.join(workDir, 'schema.graphql');
    await writeFile(graphqlSchema, servedSchemaSource());
    const { loginStaff } = await graphqlCaller(apiUrl)<{ loginStaff: { accessToken: string } }>(
      'mutation ($email: String!, $password: String!) { loginStaff(email: $email, password: $password) { accessToken } }',
      ADMIN,
    );
    const staff = { Authorization: `Bearer ${loginStaff.accessToken}` };
    // A guest session the api issued, so the cart and checkout operations reach their carts.
    const { startGuestSession } = await graphqlCaller(apiUrl)<{ startGuestSession: string }>('mutation { startGuestSession }');
    const guest = { 'X-Session-ID': startGuestSession };
    // /track answers its declared statuses and bodies, and refuses exactly what its description refuses.
    const trackChecks =
      'not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,positive_data_acceptance,negative_data_rejection';
    // Schemathesis's not_a_server_error fails on any GraphQL error, a refusal of bad input too: the hooks' check fails on 5xx and INTERNAL.
    const graphql = { schema: graphqlSchema, url: `${apiUrl}/graphql`, checks: 'no_server_failure' };
    // The catalog answers only in a channel: the seeded one, so its fields reach the database.
    const channel = { 'X-Channel-ID': DEMO_CHANNEL.code };
    const started = Date.now();
    const runs = await Promise.all([
      fuzz({ name: 'track', schema: TRACK_OPENAPI_FILE, url: apiUrl, maxExamples: 500, checks: trackChecks }),
      fuzz({ name: 'graphql-guest', ...graphql, maxExamples: 100, headers: { ...channel, ...guest } }),
      fuzz({ name: 'graphql-staff', ...graphql, maxExamples: 100, headers: { ...channel, ...staff } }),
    ]);
    const seconds = Math.round((Date.now() - started) / 1000);
    const names = ['track', 'graphql-guest', 'graphql-staff'];
    const summary = runs.map((run, index) => `${names[index]}: ${run.requests} requests ${JSON.stringify(run.byStatus)}`).join('; ');
    console.log(`[fuzz] ${runs.reduce((sum, run) => sum + run.requests, 0)} requests in ${seconds} s; ${summary}`);

    for (const run of runs) {
      expect(run.exitCode, run.output).toBe(0);
      expect(run.unanswered, run.output).toBe(0);
      expect(Object.keys(run.byStatus).filter((status) => Number(status) >= 500)).toEqual([]);
    }
    expect(runs.reduce((sum, run) => sum + run.requests, 0)).toBeGreaterThanOrEqual(MIN_REQUESTS);
    expect(api.child.exitCode, api.output()).toBeNull();
    expect(api.logLines().filter((line) => line.level === 'ERROR')).toEqual([]);
  },
  20 * 60_000,
);
