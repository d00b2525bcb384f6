// Temporal's time-skipping test server (the Java SDK's io.temporal.testserver.TestServer), from the jars
// provision.ts collected. Tests do not start it themselves: the SDK's TestWorkflowEnvironment.createTimeSkipping
// runs the executable named here with a free port as its only argument.
import { existsSync } from 'node:fs';
import { probeDefaultNamespace } from './temporal.ts';
import { isTemporalTestServerProvisioned, temporalTestServer } from './layout.ts';
import { requireProvisioned, startServer, type ServerHandle } from './managed-server.ts';
import { freePort, launch } from './proc.ts';

const MAIN_CLASS = 'io.temporal.testserver.TestServer';

const JVM_FLAGS = ['-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-Xshare:auto'];

/** The JVM's arguments up to the port; `flags` go before the class path (a class-data archive, say). */
export function testServerJvmArgs(libs: string, flags: readonly string[] = []): string[] {
  return [...JVM_FLAGS, ...flags, '-cp', `${libs}/*`, MAIN_CLASS];
}

/** The executable for `createTimeSkipping({ server: { executable: { type: 'existing-path', path } } })`. */
export function temporalTestServerExecutable(): string {
  const own = process.env.TEMPORAL_TEST_SERVER_BIN;
  if (own !== undefined && own !== '') {
    if (!existsSync(own)) throw new Error(`TEMPORAL_TEST_SERVER_BIN names ${own}, which does not exist`);
    return own;
  }
  const server = temporalTestServer();
  requireProvisioned(`${server.label} (${server.script})`, isTemporalTestServerProvisioned());
  return server.script;
}

/**
 * `command` run with `args` and then a free port, returned once it answers DescribeNamespace: provision.ts
 * records the class-data archive with it and checks the script it writes.
 */
export async function startTemporalTestServer(command: string, args: readonly string[]): Promise<ServerHandle> {
  const port = await freePort();
  return startServer('temporal-test-server', async (baseDir) => {
    const url = `127.0.0.1:${port}`;
    return {
      name: 'temporal-test-server',
      port,
      url,
      baseDir,
      launch: (logFile) => launch(command, [...args, String(port)], { logFile }),
      probe: () => probeDefaultNamespace(url),
      readyTimeoutMs: 60_000,
      stopSignal: 'SIGTERM',
      stopTimeoutMs: 15_000,
    };
  });
}
