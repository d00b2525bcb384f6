import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { givenCredentials, HttpPaymentGateway } from '@shop/platform';
import { createTestDatabase, type TestDatabase } from '../../../test/infra/isolation.ts';
import { eventually } from '../../../test/support/wait.ts';
import { TestGatewayControl } from '../src/index.ts';
import { eur, expectOperation } from './support/gateway.ts';

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const API_KEY = 'cli_gateway_key';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase('test_gateway_cli');
});
afterAll(async () => database?.drop());

function run(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { child, stdout: () => stdout, stderr: () => stderr, exited: once(child, 'exit') as Promise<[number | null]> };
}

describe('npm run payments:test-gateway', () => {
  it('is the command the root package names', async () => {
    const rootPackage = JSON.parse(await readFile(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(rootPackage.scripts['payments:test-gateway']).toBe('node tools/test-gateway/src/cli.ts');
  });

  it('serves the gateway on its database until SIGTERM, and keeps its operations there across restarts', async () => {
    const env = { TEST_GATEWAY_DATABASE_URL: database.url, TEST_GATEWAY_API_KEY: API_KEY };
    const first = run(['--port=0'], env);
    const url = await listeningUrl(first);
    const gateway = new HttpPaymentGateway({ baseUrl: url, credentials: givenCredentials(API_KEY) });
    const request = { idempotencyKey: 'cli_auth_1', amount: eur(1234), cardToken: 'tok_cli' };
    const approved = expectOperation(await gateway.authorize(request), 'approved');
    first.child.kill('SIGTERM');
    expect((await first.exited)[0]).toBe(0);

    const second = run(['--port=0'], env);
    const secondUrl = await listeningUrl(second);
    const again = new HttpPaymentGateway({ baseUrl: secondUrl, credentials: givenCredentials(API_KEY) });
    expect(await again.authorize(request)).toEqual(approved);
    expect(await new TestGatewayControl(secondUrl, API_KEY).operations()).toEqual([approved]);
    second.child.kill('SIGTERM');
    expect((await second.exited)[0]).toBe(0);
  });

  it('stops with exit code 78 naming what is not set', async () => {
    const missing = run([], {});
    expect((await missing.exited)[0]).toBe(78);
    expect(missing.stderr()).toContain('config error: set TEST_GATEWAY_DATABASE_URL TEST_GATEWAY_API_KEY');
  });
});

async function listeningUrl(process: ReturnType<typeof run>): Promise<string> {
  return eventually(
    () => {
      const match = /test gateway listening on (\S+)/.exec(process.stdout());
      if (match?.[1] === undefined) throw new Error(`the test gateway did not start: ${process.stderr()}`);
      return match[1];
    },
    {
      timeoutMs: 20_000,
      abortReason: () => (process.child.exitCode === null ? undefined : `the test gateway exited: ${process.stderr()}`),
    },
  );
}
