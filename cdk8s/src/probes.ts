import { k8s } from 'cdk8s-plus-33';

export const HTTP_PORT_NAME = 'http';

function httpGet(path: string, settings: Omit<k8s.Probe, 'httpGet'>): k8s.Probe {
  return { httpGet: { path, port: k8s.IntOrString.fromString(HTTP_PORT_NAME) }, ...settings };
}

/**
 * Liveness on /health (touches nothing), readiness on the process's readiness endpoint (the
 * dependencies it cannot work without), which answers within 2 s even when a dependency hangs, above
 * the kubelet's default timeout of 1 s. The startup probe gives a process two minutes to connect to
 * its dependencies before liveness may restart it.
 */
export function httpProbes(readinessPath: string): Pick<k8s.Container, 'startupProbe' | 'livenessProbe' | 'readinessProbe'> {
  return {
    startupProbe: httpGet('/health', { periodSeconds: 5, failureThreshold: 24 }),
    livenessProbe: httpGet('/health', { periodSeconds: 10, timeoutSeconds: 2, failureThreshold: 3 }),
    readinessProbe: httpGet(readinessPath, { periodSeconds: 5, timeoutSeconds: 3, failureThreshold: 2 }),
  };
}
