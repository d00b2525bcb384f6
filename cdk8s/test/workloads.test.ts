import { describe, expect, it } from 'vitest';
import { ALLOW_DOWNGRADE_ANNOTATION, manifestList, renderShop, type KubeObject, type Shop } from '../src/index.ts';
import { containerOf, minimalShop, workload } from './support/shops.ts';

const manifests = renderShop(minimalShop());
const deployments = {
  api: manifests.api.deployment,
  worker: manifests.worker.deployment,
  consumer: manifests.consumer.deployment,
};
const podWorkloads: Record<string, KubeObject> = { ...deployments, migrations: manifests.migrationJob };

describe('labels', () => {
  it('carries the recommended labels on every object and pod template, with its component', () => {
    const common = {
      'app.kubernetes.io/name': 'shop',
      'app.kubernetes.io/instance': 'acme',
      'app.kubernetes.io/version': '1.4.0',
      'app.kubernetes.io/managed-by': 'shop-operator',
    };
    for (const [component, object] of Object.entries(podWorkloads)) {
      const labels = { ...common, 'app.kubernetes.io/component': component };
      expect(object.metadata.labels).toEqual(labels);
      expect(workload(object).spec.template.metadata.labels).toEqual(labels);
    }
    expect(manifests.api.service.metadata.labels).toEqual({ ...common, 'app.kubernetes.io/component': 'api' });
    expect(manifests.configMap.metadata.labels).toEqual(common);
  });

  it('selects pods without the version, so a new version keeps the immutable selector', () => {
    const next = renderShop(minimalShop((shop) => (shop.spec.image.tag = '1.5.0')));
    expect(workload(next.api.deployment).spec.selector).toEqual(workload(manifests.api.deployment).spec.selector);
    expect(workload(manifests.api.deployment).spec.selector?.matchLabels).toEqual({
      'app.kubernetes.io/name': 'shop',
      'app.kubernetes.io/instance': 'acme',
      'app.kubernetes.io/component': 'api',
    });
    expect(manifests.api.service.spec).toMatchObject({ selector: workload(manifests.api.deployment).spec.selector?.matchLabels });
  });
});

describe('deployments', () => {
  it('runs the image of the spec with its pull policy, defaulting to IfNotPresent', () => {
    const always = renderShop(minimalShop((shop) => (shop.spec.image.pullPolicy = 'Always')));
    for (const object of Object.values(podWorkloads)) {
      expect(containerOf(object)).toMatchObject({ image: 'registry.example.com/shop/platform:1.4.0', imagePullPolicy: 'IfNotPresent' });
    }
    expect(containerOf(always.consumer.deployment).imagePullPolicy).toBe('Always');
    expect(containerOf(always.migrationJob).imagePullPolicy).toBe('Always');
  });

  it('runs the pinned digest instead of the tag, while the tag still names the version', () => {
    const digest = `sha256:${'ab'.repeat(32)}`;
    const pinned = renderShop(minimalShop((shop) => (shop.spec.image.digest = digest)));
    for (const object of [pinned.api.deployment, pinned.worker.deployment, pinned.consumer.deployment, pinned.migrationJob]) {
      expect(containerOf(object).image).toBe(`registry.example.com/shop/platform@${digest}`);
    }
    expect(pinned.migrationJob.metadata.name).toBe(manifests.migrationJob.metadata.name);
    expect(pinned.api.deployment.metadata.labels?.['app.kubernetes.io/version']).toBe('1.4.0');
  });

  it("starts the api through the image's start-api (API_WORKERS from the CPU limit), the others with node and their entrypoint", () => {
    expect(containerOf(deployments.api).command).toEqual(['/usr/local/bin/start-api']);
    expect(containerOf(deployments.worker).command).toEqual(['node', 'services/worker/src/main.ts']);
    expect(containerOf(deployments.consumer).command).toEqual(['node', 'services/consumer/src/main.ts']);
  });

  it("takes the api replicas from the spec, with the CRD default 2 (the worker's: under probes and ports)", () => {
    expect(workload(deployments.api).spec.replicas).toBe(2);
    const sized = renderShop(minimalShop((shop) => Object.assign(shop.spec, { api: { replicas: 5 } })));
    expect(workload(sized.api.deployment).spec.replicas).toBe(5);
  });

  it('rolls the api and the worker without taking a pod down first', () => {
    for (const object of [deployments.api, deployments.worker]) {
      expect(workload(object).spec.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } });
    }
  });

  it('runs at most one consumer with the Recreate strategy, even when the spec asks for 3, and none when paused', () => {
    for (const [replicas, expected] of [
      [3, 1],
      [1, 1],
      [undefined, 1],
      [0, 0],
    ] as const) {
      const consumer = renderShop(minimalShop((shop) => (shop.spec.consumer = { replicas }))).consumer.deployment;
      expect(workload(consumer).spec.replicas).toBe(expected);
      expect(workload(consumer).spec.strategy).toEqual({ type: 'Recreate' });
    }
  });

  it('gives each container the resources of its component, and the defaults when the spec sets none', () => {
    const sized = renderShop(
      minimalShop((shop) =>
        Object.assign(shop.spec, {
          api: { resources: { requests: { cpu: '250m', memory: '256Mi' }, limits: { memory: '512Mi' } } },
          consumer: { resources: { requests: { cpu: 1 } } },
        }),
      ),
    );
    expect(containerOf(sized.api.deployment).resources).toEqual({
      requests: { cpu: '250m', memory: '256Mi' },
      limits: { memory: '512Mi' },
    });
    expect(containerOf(sized.consumer.deployment).resources).toEqual({ requests: { cpu: 1 } });
    expect(containerOf(sized.worker.deployment).resources).toEqual({
      requests: { cpu: '100m', memory: '256Mi' },
      limits: { memory: '512Mi' },
    });
    expect(containerOf(sized.migrationJob).resources).toEqual(containerOf(sized.api.deployment).resources);
  });

  it('limits the api to one CPU by default, so start-api runs one api process, and the others only in memory', () => {
    expect(containerOf(deployments.api).resources).toEqual({
      requests: { cpu: '250m', memory: '256Mi' },
      limits: { cpu: '1', memory: '512Mi' },
    });
    expect(containerOf(deployments.consumer).resources).toEqual({
      requests: { cpu: '100m', memory: '192Mi' },
      limits: { memory: '384Mi' },
    });
    expect(containerOf(manifests.migrationJob).resources).toEqual(containerOf(deployments.api).resources);
  });
});

describe('probes and ports', () => {
  // The api is ready while it can serve (its database); Kafka or Redis down must not take every api pod
  // out of service. The worker and the consumer cannot work without what their /ready checks.
  const expected = {
    api: { port: 3000, variable: 'PORT', readiness: '/serving' },
    worker: { port: 9465, variable: 'WORKER_PORT', readiness: '/ready' },
    consumer: { port: 9464, variable: 'CONSUMER_PORT', readiness: '/ready' },
  } as const;
  for (const [component, { port, variable, readiness }] of Object.entries(expected)) {
    it(`probes the ${component} on /health and ${readiness} at its port ${port}, the one ${variable} sets`, () => {
      const container = containerOf(deployments[component as keyof typeof deployments]);
      expect(container.ports).toEqual([{ name: 'http', containerPort: port, protocol: 'TCP' }]);
      expect(container.env).toContainEqual({ name: variable, value: String(port) });
      expect(container.livenessProbe?.httpGet).toEqual({ path: '/health', port: 'http' });
      expect(container.startupProbe?.httpGet).toEqual({ path: '/health', port: 'http' });
      expect(container.readinessProbe?.httpGet).toEqual({ path: readiness, port: 'http' });
      // The readiness endpoints may take up to 2 s when a dependency hangs.
      expect(container.readinessProbe?.timeoutSeconds).toBeGreaterThan(2);
    });
  }

  it("runs no worker without a workflow engine, and the spec's replicas, given WORKFLOW_HOST, with one", () => {
    expect(workload(deployments.worker).spec.replicas).toBe(0);
    const workerWithEngine = (replicas?: number) =>
      renderShop(
        minimalShop((shop) => {
          shop.spec.secrets.workflowHost = { name: 'acme-temporal', key: 'address' };
          if (replicas !== undefined) shop.spec.worker = { replicas };
        }),
      ).worker.deployment;
    expect(workload(workerWithEngine()).spec.replicas).toBe(1);
    expect(workload(workerWithEngine(3)).spec.replicas).toBe(3);
    expect(containerOf(workerWithEngine()).env).toContainEqual({
      name: 'WORKFLOW_HOST',
      valueFrom: { secretKeyRef: { name: 'acme-temporal', key: 'address' } },
    });
  });

  it('exposes the api on port http of a ClusterIP Service', () => {
    expect(manifests.api.service.spec).toMatchObject({ type: 'ClusterIP', ports: [{ name: 'http', port: 80, targetPort: 'http' }] });
  });

  it('keeps at most one api pod and one worker pod out at a time, whatever the replicas', () => {
    for (const replicas of [1, 2, 7]) {
      const rendered = renderShop(minimalShop((shop) => Object.assign(shop.spec, { api: { replicas }, worker: { replicas } })));
      for (const [budget, deployment] of [
        [rendered.api.disruptionBudget, deployments.api],
        [rendered.worker.disruptionBudget, deployments.worker],
      ] as const) {
        expect(budget).toMatchObject({
          apiVersion: 'policy/v1',
          metadata: { name: deployment.metadata.name },
          spec: { maxUnavailable: 1, selector: workload(deployment).spec.selector, unhealthyPodEvictionPolicy: 'AlwaysAllow' },
        });
        expect(budget.spec).not.toHaveProperty('minAvailable');
      }
    }
  });
});

describe('security', () => {
  for (const [component, object] of Object.entries(podWorkloads)) {
    it(`locks down the ${component} pod: non-root uid 10001, read-only root, no privilege escalation, no capabilities, RuntimeDefault seccomp`, () => {
      const pod = workload(object).spec.template.spec;
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001, seccompProfile: { type: 'RuntimeDefault' } });
      expect(containerOf(object).securityContext).toMatchObject({
        runAsNonRoot: true,
        runAsUser: 10001,
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(pod.volumes).toEqual([{ name: 'tmp', emptyDir: {} }]);
      expect(containerOf(object).volumeMounts).toEqual([{ name: 'tmp', mountPath: '/tmp' }]);
      expect(containerOf(object).env[0]).toEqual({ name: 'NODE_ENV', value: 'production' });
    });
  }
});

describe('termination messages', () => {
  it('are the last log lines of a container that failed without writing one, which the Shop status shows', () => {
    for (const object of Object.values(podWorkloads)) expect(containerOf(object).terminationMessagePolicy).toBe('FallbackToLogsOnError');
  });
});

describe('the migration Job', () => {
  const job = workload(manifests.migrationJob);

  it('runs once per version: retries twice, never restarts in place, ends within an hour, stays a week after it finishes', () => {
    expect(manifests.migrationJob).toMatchObject({ apiVersion: 'batch/v1', kind: 'Job' });
    expect(job.spec.backoffLimit).toBe(2);
    expect(job.spec.template.spec.restartPolicy).toBe('Never');
    expect(job.spec).toMatchObject({ activeDeadlineSeconds: 3_600, ttlSecondsAfterFinished: 7 * 86_400 });
  });

  it('does not count an evicted pod as a retry, and fails at once on a usage or configuration error or a refused downgrade', () => {
    expect(job.spec.podFailurePolicy?.rules).toEqual([
      { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
      { action: 'FailJob', onExitCodes: { containerName: 'migrations', operator: 'In', values: [64, 65, 78] } },
    ]);
    expect(containerOf(manifests.migrationJob).name).toBe('migrations');
  });

  it('runs the migrate command with the configuration of the services, DATABASE_URL its only secret, and no probes', () => {
    const container = containerOf(manifests.migrationJob);
    expect(container.command).toEqual([
      'node',
      'services/platform/src/db/migrations/cli.ts',
      'deploy',
      '--summary-file=/dev/termination-log',
    ]);
    expect(container.env).toEqual([
      { name: 'NODE_ENV', value: 'production' },
      { name: 'DATABASE_URL', valueFrom: { secretKeyRef: { name: 'acme-database', key: 'url' } } },
    ]);
    expect(container.envFrom).toEqual(containerOf(deployments.api).envFrom);
    expect(container.ports).toBeUndefined();
    expect(container.livenessProbe).toBeUndefined();
  });

  it('lets a Shop with the allow-downgrade annotation run older code on a newer schema, and no other', () => {
    const allowed = renderShop(
      minimalShop((shop) => (shop.metadata = { ...shop.metadata, annotations: { [ALLOW_DOWNGRADE_ANNOTATION]: '' } })),
    );
    expect(containerOf(allowed.migrationJob).command).toEqual([...containerOf(manifests.migrationJob).command, '--allow-downgrade']);
    expect(containerOf(manifests.migrationJob).command).not.toContain('--allow-downgrade');
  });

  it('names the ConfigMap of the config it is rendered with (the operator never applies an existing Job again)', () => {
    const reconfigured = renderShop(minimalShop((shop) => (shop.spec.config = { LOG_LEVEL: 'DEBUG' })));
    expect(containerOf(reconfigured.migrationJob).envFrom).toEqual([{ configMapRef: { name: reconfigured.configMap.metadata.name } }]);
    expect(reconfigured.migrationJob.metadata.name).toBe(manifests.migrationJob.metadata.name);
  });
});

describe('the ConfigMap name', () => {
  const configMapNames = (config: Record<string, string> | undefined) => {
    const rendered = renderShop(minimalShop((shop) => (shop.spec.config = config)));
    const named = [rendered.migrationJob, rendered.api.deployment, rendered.worker.deployment, rendered.consumer.deployment].map(
      (object) => containerOf(object).envFrom[0]?.configMapRef.name,
    );
    return [rendered.configMap.metadata.name, ...named];
  };

  it('is <shop>-config-<hash of the data>, and every pod template names it', () => {
    const [name, ...named] = configMapNames({ LOG_LEVEL: 'INFO' });
    expect(name).toMatch(/^acme-config-[0-9a-f]{10}$/);
    expect(named).toEqual([name, name, name, name]);
  });

  it('changes when a value, a key or the set of keys changes', () => {
    const base = configMapNames({ LOG_LEVEL: 'INFO' })[0];
    expect(configMapNames({ LOG_LEVEL: 'DEBUG' })[0]).not.toBe(base);
    expect(configMapNames({ LOG_LEVEL: 'INFO', S3_BUCKET: 'b' })[0]).not.toBe(base);
    expect(configMapNames({ LOG_LEVEl: 'INFO' })[0]).not.toBe(base);
    expect(configMapNames({ 'LOG_LEVEL=INFO': '' })[0]).not.toBe(base);
  });

  it('stays the same for the same data in another key order, and for an empty or absent config', () => {
    expect(configMapNames({ A: '1', B: '2' })).toEqual(configMapNames({ B: '2', A: '1' }));
    expect(configMapNames({})).toEqual(configMapNames(undefined));
  });

  it('is the only template change a config change makes', () => {
    const before = renderShop(minimalShop());
    const after = renderShop(minimalShop((shop) => (shop.spec.config = { LOG_LEVEL: 'DEBUG' })));
    const withoutConfigMap = (object: KubeObject) =>
      JSON.stringify(workload(object).spec.template).replaceAll(containerOf(object).envFrom[0]?.configMapRef.name ?? '', '');
    expect(withoutConfigMap(after.api.deployment)).toEqual(withoutConfigMap(before.api.deployment));
    expect(after.configMap).toMatchObject({ data: { LOG_LEVEL: 'DEBUG' } });
  });
});

describe('renderShop', () => {
  it('is deterministic: the same Shop renders the same objects, byte for byte', () => {
    const shop = minimalShop((s) => (s.spec.config = { Z: '1', A: '2' }));
    expect(JSON.stringify(renderShop(shop))).toBe(JSON.stringify(renderShop(structuredClone(shop))));
  });

  it('does not change the Shop it is given', () => {
    const shop = minimalShop((s) => (s.spec.consumer = { replicas: 3 }));
    const copy = structuredClone(shop);
    renderShop(shop);
    expect(shop).toEqual(copy);
  });
});

describe('pod settings', () => {
  const spread = {
    maxSkew: 1,
    topologyKey: 'topology.kubernetes.io/zone',
    whenUnsatisfiable: 'ScheduleAnyway',
    labelSelector: { matchLabels: { 'app.kubernetes.io/component': 'api' } },
  };
  const affinity = {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: 'pool', operator: 'In', values: ['shop'] }] }],
      },
    },
  };
  const podSpec = (object: KubeObject) => workload(object).spec.template.spec as unknown as Record<string, unknown>;
  const settled = renderShop(
    minimalShop((shop) =>
      Object.assign(shop.spec, {
        podDefaults: {
          imagePullSecrets: [{ name: 'registry' }],
          serviceAccountName: 'shop',
          nodeSelector: { pool: 'general' },
          tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'shop', effect: 'NoSchedule' }],
          priorityClassName: 'shop-normal',
        },
        api: { nodeSelector: { pool: 'web' }, affinity, topologySpreadConstraints: [spread], priorityClassName: 'shop-high' },
        worker: { tolerations: [] },
      }),
    ),
  );

  it('takes each field from the component when set there, else from podDefaults, and passes it unchanged', () => {
    expect(podSpec(settled.api.deployment)).toMatchObject({
      imagePullSecrets: [{ name: 'registry' }],
      serviceAccountName: 'shop',
      nodeSelector: { pool: 'web' },
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'shop', effect: 'NoSchedule' }],
      affinity,
      topologySpreadConstraints: [spread],
      priorityClassName: 'shop-high',
    });
    // An empty list on the component replaces the default's.
    expect(podSpec(settled.worker.deployment)).toMatchObject({
      nodeSelector: { pool: 'general' },
      tolerations: [],
      priorityClassName: 'shop-normal',
    });
    expect(podSpec(settled.consumer.deployment)).toMatchObject({
      serviceAccountName: 'shop',
      nodeSelector: { pool: 'general' },
      priorityClassName: 'shop-normal',
    });
    expect(podSpec(settled.consumer.deployment)).not.toHaveProperty('affinity');
  });

  it('schedules the migration Job like the api, whose database it migrates ahead of', () => {
    const job = podSpec(settled.migrationJob);
    expect(job).toMatchObject({
      imagePullSecrets: [{ name: 'registry' }],
      nodeSelector: { pool: 'web' },
      affinity,
      priorityClassName: 'shop-high',
    });
  });

  it('sets none of them when the Shop sets none', () => {
    for (const object of Object.values(podWorkloads)) {
      for (const field of [
        'imagePullSecrets',
        'serviceAccountName',
        'nodeSelector',
        'tolerations',
        'affinity',
        'topologySpreadConstraints',
        'priorityClassName',
      ]) {
        expect(podSpec(object)).not.toHaveProperty(field);
      }
    }
  });
});

describe('autoscaling', () => {
  const withWorkflows = (shop: Shop) => (shop.spec.secrets.workflowHost = { name: 'acme-temporal', key: 'address' });

  it('renders no autoscaler unless the spec asks for one', () => {
    expect(manifests.api.autoscaler).toBeUndefined();
    expect(manifests.worker.autoscaler).toBeUndefined();
    expect(manifestList(manifests).map((object) => object.kind)).not.toContain('HorizontalPodAutoscaler');
  });

  it('scales the api and the worker on CPU with an autoscaler of the same name, and leaves their replicas out', () => {
    const scaled = renderShop(
      minimalShop((shop) => {
        withWorkflows(shop);
        Object.assign(shop.spec, {
          api: { replicas: 3, autoscaling: { minReplicas: 2, maxReplicas: 8 } },
          worker: { autoscaling: { minReplicas: 1, maxReplicas: 3, targetCPUUtilizationPercentage: 50 } },
        });
      }),
    );
    for (const [component, deployment, autoscaler, bounds, target] of [
      ['api', scaled.api.deployment, scaled.api.autoscaler, [2, 8], 70],
      ['worker', scaled.worker.deployment, scaled.worker.autoscaler, [1, 3], 50],
    ] as const) {
      expect(workload(deployment).spec).not.toHaveProperty('replicas');
      expect(autoscaler).toMatchObject({
        apiVersion: 'autoscaling/v2',
        kind: 'HorizontalPodAutoscaler',
        metadata: { name: `acme-${component}`, namespace: 'shops', labels: { 'app.kubernetes.io/component': component } },
        spec: {
          scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: `acme-${component}` },
          minReplicas: bounds[0],
          maxReplicas: bounds[1],
          metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: target } } }],
        },
      });
    }
    expect(manifestList(scaled)).toEqual(expect.arrayContaining([scaled.api.autoscaler, scaled.worker.autoscaler]));
  });

  it('runs no worker and no worker autoscaler without a workflow engine, whatever the autoscaling asks', () => {
    const idle = renderShop(minimalShop((shop) => (shop.spec.worker = { autoscaling: { minReplicas: 1, maxReplicas: 3 } })));
    expect(workload(idle.worker.deployment).spec.replicas).toBe(0);
    expect(idle.worker.autoscaler).toBeUndefined();
  });
});
