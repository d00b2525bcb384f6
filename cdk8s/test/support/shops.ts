import type { KubeObject, Shop } from '../../src/index.ts';

/** A Shop with only the required fields, in namespace `shops`; `change` adjusts a fresh copy. */
export function minimalShop(change: (shop: Shop) => void = () => {}): Shop {
  const shop: Shop = {
    apiVersion: 'shop.dev/v1alpha1',
    kind: 'Shop',
    metadata: { name: 'acme', namespace: 'shops' },
    spec: {
      image: { repository: 'registry.example.com/shop/platform', tag: '1.4.0' },
      secrets: {
        databaseUrl: { name: 'acme-database', key: 'url' },
        cacheUrl: { name: 'acme-cache', key: 'url' },
        brokerAddress: { name: 'acme-kafka', key: 'bootstrap' },
      },
    },
  };
  change(shop);
  return shop;
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } };
}

interface Probe {
  httpGet: { path: string; port: string | number };
  timeoutSeconds?: number;
}

export interface Container {
  name: string;
  image: string;
  imagePullPolicy: string;
  command: string[];
  env: EnvVar[];
  envFrom: Array<{ configMapRef: { name: string } }>;
  ports?: Array<{ name: string; containerPort: number }>;
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  resources?: { requests?: Record<string, string | number>; limits?: Record<string, string | number> };
  securityContext: Record<string, unknown>;
  volumeMounts: Array<{ name: string; mountPath: string }>;
  terminationMessagePolicy?: string;
}

export interface PodTemplate {
  metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
  spec: {
    containers: Container[];
    restartPolicy: string;
    securityContext: Record<string, unknown>;
    volumes: Array<{ name: string; emptyDir?: Record<string, never> }>;
  };
}

export interface Workload {
  metadata: KubeObject['metadata'];
  spec: {
    replicas?: number;
    backoffLimit?: number;
    ttlSecondsAfterFinished?: number;
    activeDeadlineSeconds?: number;
    podFailurePolicy?: { rules: Array<Record<string, unknown>> };
    selector?: { matchLabels: Record<string, string> };
    strategy?: { type: string; rollingUpdate?: { maxUnavailable: number | string; maxSurge: number | string } };
    template: PodTemplate;
  };
}

export const workload = (object: KubeObject): Workload => object as unknown as Workload;

/** The only container of a Deployment's or Job's pod template. */
export function containerOf(object: KubeObject): Container {
  const [container, ...others] = workload(object).spec.template.spec.containers;
  if (!container || others.length > 0) throw new Error(`${object.metadata.name} should have exactly one container`);
  return container;
}
