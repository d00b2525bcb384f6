import type { k8s } from 'cdk8s-plus-33';
import type { HttpPort } from './components.ts';
import { containerEnvironment } from './environment.ts';
import { componentLabels, type Component } from './labels.ts';
import { HTTP_PORT_NAME, httpProbes } from './probes.ts';
import { componentSpec, podSettings } from './pod-settings.ts';
import { containerResources } from './resources.ts';
import { CONTAINER_SECURITY_CONTEXT, POD_SECURITY_CONTEXT } from './security.ts';
import { imageOf, type ShopContext } from './shop-context.ts';

export interface PodTemplateProps {
  readonly shop: ShopContext;
  readonly component: Component;
  readonly command: readonly string[];
  readonly configMapName: string;
  readonly restartPolicy: 'Always' | 'Never';
  /** The server the probes reach; none for a run-to-completion Job. */
  readonly http?: HttpPort;
}

const TMP_VOLUME = 'tmp';

/**
 * One container of the platform image, locked down, with the Shop's environment, the component's
 * resources and pod settings (scheduling, pull secrets, service account), and a writable /tmp.
 */
export function podTemplate(props: PodTemplateProps): k8s.PodTemplateSpec {
  const { shop, component, http } = props;
  const container: k8s.Container = {
    name: component,
    ...imageOf(shop.spec),
    command: [...props.command],
    ...containerEnvironment(shop, component, props.configMapName, http),
    ports: http ? [{ name: HTTP_PORT_NAME, containerPort: http.port, protocol: 'TCP' }] : undefined,
    ...(http ? httpProbes(http.readinessPath) : {}),
    resources: containerResources(componentSpec(shop.spec, component)?.resources, component),
    securityContext: CONTAINER_SECURITY_CONTEXT,
    volumeMounts: [{ name: TMP_VOLUME, mountPath: '/tmp' }],
    // A container that fails without writing its termination message leaves its last log lines there: the operator shows them in the Shop's status.
    terminationMessagePolicy: 'FallbackToLogsOnError',
  };
  return {
    metadata: { labels: componentLabels(shop, component) },
    spec: {
      ...podSettings(shop.spec, component),
      containers: [container],
      restartPolicy: props.restartPolicy,
      securityContext: POD_SECURITY_CONTEXT,
      // The processes never call the Kubernetes API, and their environment is exactly what is rendered.
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      volumes: [{ name: TMP_VOLUME, emptyDir: {} }],
    },
  };
}
