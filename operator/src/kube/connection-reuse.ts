import type { KubeConfig } from '@kubernetes/client-node';

type RequestContext = Parameters<KubeConfig['applySecurityAuthentication']>[0];
type Dispatcher = Parameters<RequestContext['setDispatcher']>[0];

/**
 * @kubernetes/client-node 2.x gives every request a new undici Agent, so every API call opens a new
 * TLS connection (measured: 15 ms per call instead of 4, hundreds of sockets held, tens of MB).
 * This keeps the first Agent and hands it to every later request while the current cluster and user
 * (whose TLS material the Agent carries) stay the same. Bearer tokens travel as headers, set per
 * request as before, so a rotated service-account token is still picked up.
 */
export function reuseConnections(kubeConfig: KubeConfig): void {
  const authenticate = kubeConfig.applySecurityAuthentication.bind(kubeConfig);
  let reused: { key: string; dispatcher: Dispatcher } | undefined;
  kubeConfig.applySecurityAuthentication = async (context) => {
    const key = JSON.stringify([kubeConfig.getCurrentCluster(), kubeConfig.getCurrentUser()]);
    const setDispatcher = context.setDispatcher.bind(context);
    context.setDispatcher = (fresh) => {
      if (reused?.key !== key) reused = { key, dispatcher: fresh };
      setDispatcher(reused.dispatcher);
    };
    await authenticate(context);
  };
}
