// Temporal's dev server (the Temporal CLI's `server start-dev`): the frontend, history, matching and
// worker services in one process on SQLite. Unlike the Java time-skipping test server it runs Schedules.
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { isToolProvisioned, temporalCliTool } from './layout.ts';
import { requireProvisioned, startServer, type ServerHandle, type ServerPlacement } from './managed-server.ts';
import { freePort, launch } from './proc.ts';

async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

export interface TemporalHandle extends ServerHandle {
  /** The server's own Prometheus metrics (task queue backlog, polls): `http://127.0.0.1:<port>/metrics`. */
  readonly metricsUrl: string;
}

export interface TemporalPlacement extends ServerPlacement {
  readonly httpPort?: number;
  readonly metricsPort?: number;
  /** Serves the web UI there; left out, the UI is off. */
  readonly uiPort?: number;
}

/** Answers once the server at `url` knows the default namespace, which it registers when its own setup is done. */
export async function probeDefaultNamespace(url: string): Promise<void> {
  const connection = await Connection.connect({ address: url, connectTimeout: 1_000 });
  try {
    await connection.workflowService.describeNamespace({ namespace: 'default' });
  } finally {
    await connection.close();
  }
}

export async function startTemporal(placement: TemporalPlacement = {}): Promise<TemporalHandle> {
  const cli = temporalCliTool();
  requireProvisioned(cli.label, isToolProvisioned(cli));
  // The frontend (gRPC), its HTTP API and the metrics endpoint listen on ports we choose; the
  // services' membership ports are picked by the server.
  const free = await distinctFreePorts(3);
  const port = placement.port ?? (free[0] as number);
  const httpPort = placement.httpPort ?? (free[1] as number);
  const metricsPort = placement.metricsPort ?? (free[2] as number);
  const handle = await startServer(
    'temporal',
    async (baseDir) => {
      const ui = placement.uiPort === undefined ? ['--headless'] : ['--ui-ip', '127.0.0.1', '--ui-port', String(placement.uiPort)];
      const args = ['server', 'start-dev', ...ui, '--ip', '127.0.0.1', '--port', String(port)];
      args.push('--http-port', String(httpPort), '--metrics-port', String(metricsPort), '--log-level', 'warn');
      args.push('--db-filename', join(baseDir, 'temporal.db'));
      // Matching reports a task queue's approximate_backlog_count when it saves the queue's ack level:
      // every minute by default, every 5 s here so a test sees the backlog while it runs.
      args.push('--dynamic-config-value', 'matching.updateAckInterval="5s"');
      const url = `127.0.0.1:${port}`;
      return {
        name: 'temporal',
        port,
        url,
        baseDir,
        launch: (logFile) => launch(cli.binary, args, { logFile }),
        probe: () => probeDefaultNamespace(url),
        readyTimeoutMs: 60_000,
        stopSignal: 'SIGTERM',
        stopTimeoutMs: 15_000,
      };
    },
    placement.dir,
  );
  return { ...handle, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics` };
}
