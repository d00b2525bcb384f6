import { reuseConnections } from './connection-reuse.ts';
import { limitRequestTime } from './request-deadline.ts';
import { CoordinationV1Api, CoreV1Api, CustomObjectsApi, KubernetesObjectApi, type KubeConfig } from '@kubernetes/client-node';

/** The API clients the operator uses, made once from one KubeConfig. */
export interface KubeClients {
  /** Any built-in kind, by apiVersion and kind: server-side apply and reads of the Shop's objects. */
  readonly objects: KubernetesObjectApi;
  /** Shops and their status subresource. */
  readonly customObjects: CustomObjectsApi;
  /** Events. */
  readonly core: CoreV1Api;
  /** The leader election Lease. */
  readonly coordination: CoordinationV1Api;
}

/** `requestTimeoutMs`: how long each request may take, its answer included. */
export function kubeClients(kubeConfig: KubeConfig, requestTimeoutMs: number): KubeClients {
  reuseConnections(kubeConfig);
  limitRequestTime(kubeConfig, requestTimeoutMs);
  return {
    objects: KubernetesObjectApi.makeApiClient(kubeConfig),
    customObjects: kubeConfig.makeApiClient(CustomObjectsApi),
    core: kubeConfig.makeApiClient(CoreV1Api),
    coordination: kubeConfig.makeApiClient(CoordinationV1Api),
  };
}
