import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { freePort } from '../test/infra/proc.ts';
import { spawnService, type ServiceProcess } from '../test/support/service-process.ts';
import { API_MAIN } from '../services/api/test/support/run-api.ts';

/** Diagnostics: BENCH_API_PROFILE=<dir> writes a V8 CPU profile there when the api stops; BENCH_API_NODE_OPTIONS adds any Node options (e.g. --perf-basic-prof). */
function diagnosticNodeOptions(): Record<string, string> {
  const options = [
    process.env.BENCH_API_PROFILE ? `--cpu-prof --cpu-prof-dir=${path.resolve(process.env.BENCH_API_PROFILE)}` : '',
    process.env.BENCH_API_NODE_OPTIONS ?? '',
  ].filter((option) => option !== '');
  return options.length > 0 ? { NODE_OPTIONS: options.join(' ') } : {};
}

/**
 * `node services/api/src/main.ts` as `npm start` runs it, with NODE_ENV=test: production requires a
 * Kafka broker, which would put a JVM on the same cores and measure the relay rather than the api.
 * Without a broker the outbox hands events to the in-process subscriptions, as a single-node
 * deployment does. Otherwise production's settings: events checked in `warn` mode, a real secret,
 * logs at ERROR (no access log), the default pool of 10 database connections.
 */
export async function startApi(
  workDir: string,
  databaseUrl: string,
  cacheUrl: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ url: string; service: ServiceProcess }> {
  const port = await freePort();
  const service = spawnService(
    API_MAIN,
    {
      NODE_ENV: 'test',
      LOG_LEVEL: 'ERROR',
      EVENT_SCHEMA_MODE: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      CACHE_URL: cacheUrl,
      SECRET_KEY: randomBytes(32).toString('base64url'),
      SECRETS_MASTER_KEY: randomBytes(32).toString('base64url'),
      ...diagnosticNodeOptions(),
      ...env,
    },
    workDir,
  );
  const url = `http://127.0.0.1:${port}`;
  process.stderr.write(`[bench] api pid ${service.child.pid} at ${url}\n`);
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && service.child.exitCode === null) {
    if (
      await fetch(`${url}/ready`).then(
        (response) => response.ok,
        () => false,
      )
    )
      return { url, service };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  service.child.kill('SIGKILL');
  throw new Error(`the api did not become ready:\n${service.output()}`);
}

/** SIGTERM, as Kubernetes stops it; SIGKILL if it has not exited 15 s later. */
export async function stopApi(service: ServiceProcess): Promise<void> {
  if (service.child.exitCode !== null || service.child.signalCode !== null) return;
  service.child.kill('SIGTERM');
  const timer = setTimeout(() => service.child.kill('SIGKILL'), 15_000);
  await service.exited();
  clearTimeout(timer);
}
