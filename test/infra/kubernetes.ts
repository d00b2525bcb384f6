// A real Kubernetes API server for tests, envtest style: kube-apiserver on kine (the etcd API on SQLite).
// By itself nothing reconciles the objects it stores: kube-controllers.ts adds the controllers and the scheduler,
// node-agent.ts a stand-in for the kubelet.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { connect as connectHttp2 } from 'node:http2';
import { request } from 'node:https';
import { join } from 'node:path';
import { helmTool, isToolProvisioned, kineTool, kubeApiServerTool, type GoTool } from './layout.ts';
import { requireProvisioned, startServer, type ServerHandle } from './managed-server.ts';
import { freePort, launch } from './proc.ts';

export interface KubeApiServer {
  /** `https://127.0.0.1:<port>` */
  readonly url: string;
  /** Bearer token of a user in `system:masters` (allowed everything, RBAC does not apply). */
  readonly token: string;
  /**
   * PEM of the API server's self-signed serving certificate and the CA that signed it, for `ca` options.
   * The certificate is valid for 127.0.0.1, so clients can verify TLS instead of skipping it.
   */
  readonly caData: string;
  /** A kubeconfig (current context: this server, namespace `default`) for `KubeConfig.loadFromFile` and `helm --kubeconfig`. */
  kubeconfigPath(): string;
  /** PIDs of the two processes; undefined while stopped. */
  pids(): { kine: number | undefined; apiServer: number | undefined };
  /** Stops the API server, then kine, by PID (SIGTERM, SIGKILL after a timeout). The data is kept. */
  stop(): Promise<void>;
  /** Starts both again on the same ports, data, certificate and token. */
  start(): Promise<void>;
  /** stop() and delete all data. */
  dispose(): Promise<void>;
}

export function requireTool(tool: GoTool): string {
  requireProvisioned(`${tool.label} (${tool.binary})`, isToolProvisioned(tool));
  return tool.binary;
}

/** Path of the cached Helm CLI; throws with the provisioning command when it is missing. */
export function helmBinary(): string {
  return requireTool(helmTool());
}

/**
 * One gRPC call to kine, `etcdserverpb.KV/Range` for a single key, encoded by hand (the request is one
 * protobuf field: 1 = key). Resolves when kine answers with grpc-status 0, i.e. its SQLite store works.
 */
function etcdRange(port: number): Promise<void> {
  const key = Buffer.from('/shop-infra/probe');
  const message = Buffer.concat([Buffer.from([0x0a, key.length]), key]);
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1); // byte 0: not compressed
  message.copy(frame, 5);
  return new Promise((resolve, reject) => {
    const session = connectHttp2(`http://127.0.0.1:${port}`);
    const timer = setTimeout(() => session.destroy(new Error('no answer within 2 s')), 2_000);
    let status: string | undefined;
    const finish = (error?: Error): void => {
      clearTimeout(timer);
      session.close();
      if (error) reject(error);
      else if (status === '0') resolve();
      else reject(new Error(`etcd Range answered grpc-status ${status ?? '(none)'}`));
    };
    session.on('error', finish);
    const stream = session.request({
      ':method': 'POST',
      ':path': '/etcdserverpb.KV/Range',
      'content-type': 'application/grpc',
      te: 'trailers',
    });
    const readStatus = (headers: Record<string, unknown>): void => {
      if (headers['grpc-status'] !== undefined) status = String(headers['grpc-status']);
    };
    stream.on('response', readStatus); // a "trailers-only" answer puts the status here
    stream.on('trailers', readStatus);
    stream.on('error', finish);
    stream.on('close', () => finish());
    stream.resume();
    stream.end(frame);
  });
}

function startKine(): Promise<ServerHandle> {
  const binary = requireTool(kineTool());
  return startServer('kine', async (baseDir) => {
    const port = await freePort();
    // No --endpoint: kine's default, SQLite in ./db/state.db under its working dir (the temp dir).
    const args = ['--listen-address', `127.0.0.1:${port}`, '--metrics-bind-address', '0'];
    return {
      name: 'kine',
      port,
      url: `http://127.0.0.1:${port}`,
      baseDir,
      launch: (logFile) => launch(binary, args, { cwd: baseDir, logFile }),
      probe: () => etcdRange(port),
      readyTimeoutMs: 30_000,
      stopSignal: 'SIGTERM',
      stopTimeoutMs: 10_000,
    };
  });
}

/** GET `path` over TLS verified against `ca`, with the bearer `token` if any; resolves with the body when the status is 200. */
export function getVerified(url: string, path: string, token: string | undefined, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const headers = token === undefined ? {} : { authorization: `Bearer ${token}` };
    const req = request(new URL(path, url), { ca, headers, timeout: 5_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        if (res.statusCode === 200) resolve(body);
        else reject(new Error(`GET ${path} answered ${res.statusCode}: ${body.trim().split('\n').slice(-5).join(' ')}`));
      });
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${path} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

interface ApiServerStart {
  handle: ServerHandle;
  token: string;
  caData: string;
  kubeconfig: string;
}

async function startApiServerOn(etcdUrl: string): Promise<ApiServerStart> {
  const binary = requireTool(kubeApiServerTool());
  const token = randomBytes(32).toString('hex');
  let certFile = '';
  let kubeconfig = '';
  const handle = await startServer('kube-apiserver', async (baseDir) => {
    const port = await freePort();
    const url = `https://127.0.0.1:${port}`;
    const certDir = join(baseDir, 'certs');
    await mkdir(certDir, { mode: 0o700 });
    // With --cert-dir and no --tls-cert-file the API server creates a CA and a serving certificate for the
    // advertise address (127.0.0.1) on first start, and reuses them on later starts.
    certFile = join(certDir, 'apiserver.crt');
    kubeconfig = join(baseDir, 'kubeconfig');
    const tokenFile = join(baseDir, 'tokens.csv');
    await writeFile(tokenFile, `${token},shop-infra-admin,shop-infra-admin,"system:masters"\n`, { mode: 0o600 });
    // The key pair that signs and verifies service account tokens.
    const { privateKey, publicKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    const signingKey = join(baseDir, 'sa.key');
    const verifyingKey = join(baseDir, 'sa.pub');
    await writeFile(signingKey, privateKey, { mode: 0o600 });
    await writeFile(verifyingKey, publicKey);
    const args = [
      `--etcd-servers=${etcdUrl}`,
      `--cert-dir=${certDir}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      // The default (lease) reconciler refuses a loopback advertise address; with none the `kubernetes`
      // Service in `default` simply has no endpoints, which nothing here needs.
      '--endpoint-reconciler-type=none',
      `--secure-port=${port}`,
      // Room for 4,094 Services (a /24 holds 253): the operator benchmark makes one per Shop, for hundreds of Shops.
      '--service-cluster-ip-range=10.0.0.0/20',
      '--authorization-mode=RBAC',
      '--allow-privileged=true',
      // On by default too: named so that tests of Pod Security Standards and quotas keep real admission.
      '--enable-admission-plugins=PodSecurity,ResourceQuota',
      // Nothing would create the service account tokens it insists on, so pods could not be created.
      '--disable-admission-plugins=ServiceAccount',
      `--service-account-issuer=${url}`,
      `--service-account-key-file=${verifyingKey}`,
      `--service-account-signing-key-file=${signingKey}`,
      `--token-auth-file=${tokenFile}`,
    ];
    return {
      name: 'kube-apiserver',
      port,
      url,
      baseDir,
      launch: (logFile) => launch(binary, args, { logFile }),
      // /readyz is 200 only once storage answers and every post-start hook (RBAC roles, system namespaces...) is done.
      probe: async () => {
        await getVerified(url, '/readyz', token, readFileSync(certFile, 'utf8'));
      },
      readyTimeoutMs: 120_000,
      stopSignal: 'SIGTERM',
      stopTimeoutMs: 20_000,
    };
  });
  const caData = readFileSync(certFile, 'utf8');
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'shop-infra',
        cluster: { server: handle.url, 'certificate-authority-data': Buffer.from(caData).toString('base64') },
      },
    ],
    users: [{ name: 'shop-infra-admin', user: { token } }],
    contexts: [{ name: 'shop-infra', context: { cluster: 'shop-infra', user: 'shop-infra-admin', namespace: 'default' } }],
    'current-context': 'shop-infra',
  };
  // JSON is valid YAML; 0600 because Helm warns about group- or world-readable kubeconfigs.
  await writeFile(kubeconfig, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  return { handle, token, caData, kubeconfig };
}

/**
 * Starts kine and a kube-apiserver on free ports with fresh temp dirs and returns once `/readyz` is 200.
 * Each call starts a separate pair; it takes a few seconds, so share one per test file.
 */
export async function startKubeApiServer(): Promise<KubeApiServer> {
  // Fail fast, before starting anything, if either binary is missing.
  requireTool(kubeApiServerTool());
  const kine = await startKine();
  let apiServer: ApiServerStart;
  try {
    apiServer = await startApiServerOn(kine.url);
  } catch (error) {
    await kine.dispose();
    throw error;
  }
  const { handle, token, caData, kubeconfig } = apiServer;
  return {
    url: handle.url,
    token,
    caData,
    kubeconfigPath: () => kubeconfig,
    pids: () => ({ kine: kine.pid(), apiServer: handle.pid() }),
    stop: async () => {
      await handle.stop();
      await kine.stop();
    },
    start: async () => {
      await kine.start();
      await handle.start();
    },
    dispose: async () => {
      try {
        await handle.dispose();
      } finally {
        await kine.dispose();
      }
    },
  };
}
