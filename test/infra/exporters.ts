// postgres_exporter and redis_exporter, built by provision.ts, run on a free loopback port against a test server.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isToolProvisioned, postgresExporterTool, redisExporterTool, type GoTool } from './layout.ts';
import { requireProvisioned } from './managed-server.ts';
import { freePort, launch, tailFile, trackTempDir, untrackTempDir } from './proc.ts';
import { eventually } from '../support/wait.ts';

export interface Exporter {
  /** `http://127.0.0.1:<port>/metrics` */
  readonly metricsUrl: string;
  /** Stops the exporter by its PID and removes its log. */
  stop(): Promise<void>;
}

/** Starts the exporter and returns once its scrape reports `<upMetric> 1`: it reached its server. */
async function startExporter(
  tool: GoTool,
  args: (listen: string) => string[],
  upMetric: string,
  env: NodeJS.ProcessEnv = {},
): Promise<Exporter> {
  requireProvisioned(`${tool.label} (${tool.binary})`, isToolProvisioned(tool));
  const dir = await mkdtemp(join(tmpdir(), `shop-infra-${tool.dir.split('/').at(-1) ?? 'exporter'}-`));
  trackTempDir(dir);
  const logFile = join(dir, 'exporter.log');
  const port = await freePort();
  const exporter = await launch(tool.binary, args(`127.0.0.1:${port}`), { logFile, env: { ...process.env, ...env } });
  const metricsUrl = `http://127.0.0.1:${port}/metrics`;
  const stop = async () => {
    await exporter.stop('SIGTERM', 5_000);
    await rm(dir, { recursive: true, force: true });
    untrackTempDir(dir);
  };
  try {
    await eventually(
      async () => {
        const text = await (await fetch(metricsUrl)).text();
        if (!new RegExp(`^${upMetric} 1$`, 'm').test(text)) throw new Error(`${upMetric} is not 1 yet`);
      },
      { timeoutMs: 20_000, abortReason: () => exporter.exitStatus() },
    );
  } catch (error) {
    const log = tailFile(logFile);
    await stop();
    throw new Error(`${tool.label} did not come up: ${error instanceof Error ? error.message : String(error)}\n${log}`);
  }
  return { metricsUrl, stop };
}

export function startPostgresExporter(databaseUrl: string): Promise<Exporter> {
  const url = new URL(databaseUrl);
  if (!url.searchParams.has('sslmode')) url.searchParams.set('sslmode', 'disable');
  return startExporter(postgresExporterTool(), (listen) => [`--web.listen-address=${listen}`], 'pg_up', {
    DATA_SOURCE_NAME: url.toString(),
  });
}

export function startRedisExporter(redisUrl: string): Promise<Exporter> {
  return startExporter(redisExporterTool(), (listen) => [`--redis.addr=${redisUrl}`, `--web.listen-address=${listen}`], 'redis_up');
}
