import { KubeConfig, Watch } from '@kubernetes/client-node';
import { expect, it } from 'vitest';
import { reuseConnections } from '../src/kube/connection-reuse.ts';

const kubeconfig = (server: string) => ({
  clusters: [
    { name: 'a', server, skipTLSVerify: true },
    { name: 'b', server: 'https://127.0.0.1:6444', skipTLSVerify: true },
  ],
  users: [{ name: 'u', token: 'secret-token' }],
  contexts: [
    { name: 'a', cluster: 'a', user: 'u' },
    { name: 'b', cluster: 'b', user: 'u' },
  ],
  currentContext: 'a',
});

/** What one request's authentication hands to the request: its dispatcher and its headers. */
async function authenticate(config: KubeConfig): Promise<{ dispatcher: unknown; headers: Record<string, string> }> {
  let dispatcher: unknown;
  const headers: Record<string, string> = {};
  const context = {
    setDispatcher: (value: unknown) => void (dispatcher = value),
    setHeaderParam: (key: string, value: string) => void (headers[key] = value),
  };
  await config.applySecurityAuthentication(context as never);
  return { dispatcher, headers };
}

it('gives client-node a new connection pool per request unless reused', async () => {
  const plain = new KubeConfig();
  plain.loadFromOptions(kubeconfig('https://127.0.0.1:6443'));
  expect((await authenticate(plain)).dispatcher).not.toBe((await authenticate(plain)).dispatcher);
});

it('hands every request the same pool while the cluster and user stay, and a new one when they change', async () => {
  const config = new KubeConfig();
  config.loadFromOptions(kubeconfig('https://127.0.0.1:6443'));
  reuseConnections(config);
  const first = await authenticate(config);
  const second = await authenticate(config);
  expect(first.dispatcher).toBeDefined();
  expect(second.dispatcher).toBe(first.dispatcher);
  expect(second.headers.Authorization).toBe('Bearer secret-token');

  config.setCurrentContext('b');
  const other = await authenticate(config);
  expect(other.dispatcher).not.toBe(first.dispatcher);
  expect((await authenticate(config)).dispatcher).toBe(other.dispatcher);
});

it('hands the pool to watches too, which authenticate through the same KubeConfig', async () => {
  const config = new KubeConfig();
  config.loadFromOptions(kubeconfig('https://127.0.0.1:6443'));
  reuseConnections(config);
  const request = await authenticate(config);
  let watchDispatcher: unknown;
  const authenticateOriginal = config.applySecurityAuthentication;
  config.applySecurityAuthentication = async (context) => {
    await authenticateOriginal(context);
    watchDispatcher = context.getDispatcher();
  };
  // Nothing listens there, so the watch ends at once with a connection error; it has authenticated by then.
  await new Promise<void>(
    (resolve) =>
      void new Watch(config).watch(
        '/api/v1/namespaces',
        {},
        () => {},
        () => resolve(),
      ),
  );
  expect(watchDispatcher).toBe(request.dispatcher);
});

it('starts a new pool when a kubeconfig is loaded again: new cluster and user objects', async () => {
  const config = new KubeConfig();
  config.loadFromOptions(kubeconfig('https://127.0.0.1:6443'));
  reuseConnections(config);
  const first = await authenticate(config);
  config.loadFromOptions(kubeconfig('https://127.0.0.1:6443'));
  const reloaded = await authenticate(config);
  expect(reloaded.dispatcher).not.toBe(first.dispatcher);
  expect((await authenticate(config)).dispatcher).toBe(reloaded.dispatcher);
});
