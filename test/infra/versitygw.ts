// versitygw, an S3-compatible object store, serving a fresh temp dir on a free loopback port with generated root credentials.
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isToolProvisioned, versityGwTool } from './layout.ts';
import { requireProvisioned, startServer, type ServerHandle, type ServerPlacement } from './managed-server.ts';
import { freePort, launch } from './proc.ts';

export interface S3ServerHandle extends ServerHandle {
  /** The root user's keys: they may create buckets and do anything else. */
  readonly accessKey: string;
  readonly secretKey: string;
}

export interface S3ServerOptions extends ServerPlacement {
  /** The root keys; generated when left out. */
  readonly accessKey?: string;
  readonly secretKey?: string;
}

/** Starts versitygw's posix backend; returns once it answers S3 requests (an unsigned one is refused with an S3 error document). */
export async function startVersityGw(options: S3ServerOptions = {}): Promise<S3ServerHandle> {
  const tool = versityGwTool();
  requireProvisioned(`${tool.label} (${tool.binary})`, isToolProvisioned(tool));
  const accessKey = options.accessKey ?? `root${randomBytes(8).toString('hex')}`;
  const secretKey = options.secretKey ?? randomBytes(24).toString('base64url');
  const port = options.port ?? (await freePort());
  const handle = await startServer(
    'versitygw',
    async (baseDir) => {
      // Objects in data/, their metadata in meta/ (sidecar files: no extended attributes needed).
      const data = join(baseDir, 'data');
      const sidecar = join(baseDir, 'meta');
      await Promise.all([mkdir(data, { recursive: true }), mkdir(sidecar, { recursive: true })]);
      const url = `http://127.0.0.1:${port}`;
      return {
        name: 'versitygw',
        port,
        url,
        baseDir,
        launch: (logFile) =>
          launch(tool.binary, ['--port', `127.0.0.1:${port}`, 'posix', '--sidecar', sidecar, data], {
            logFile,
            env: { ...process.env, ROOT_ACCESS_KEY: accessKey, ROOT_SECRET_KEY: secretKey },
          }),
        probe: async () => {
          const response = await fetch(`${url}/`, { signal: AbortSignal.timeout(2_000) });
          const body = await response.text();
          if (response.status !== 403 || !body.includes('<Error>'))
            throw new Error(`GET / answered ${response.status}: ${body.slice(0, 200)}`);
        },
        readyTimeoutMs: 20_000,
        stopSignal: 'SIGTERM',
        stopTimeoutMs: 10_000,
      };
    },
    options.dir,
  );
  return { ...handle, accessKey, secretKey };
}
