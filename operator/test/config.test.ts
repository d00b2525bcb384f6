import { describe, expect, it } from 'vitest';
import { ConfigError } from '@shop/runtime';
import { loadConfig, type ConfigSources } from '../src/config.ts';

const outsideCluster: ConfigSources = {
  fileExists: (path) => path === '/home/me/.kube/config',
  podNamespace: () => undefined,
  hostname: () => 'laptop',
};
const inCluster: ConfigSources = { fileExists: () => false, podNamespace: () => 'shop-system', hostname: () => 'shop-operator-7d9f' };

function problemsOf(env: NodeJS.ProcessEnv, sources = outsideCluster): readonly string[] {
  try {
    loadConfig(env, sources);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

describe('loadConfig', () => {
  it('in a cluster: the service account, every namespace, port 8081, a Lease in the pod namespace', () => {
    const config = loadConfig({ KUBERNETES_SERVICE_HOST: '10.0.0.1', POD_NAME: 'shop-operator-7d9f-x2' }, inCluster);
    expect(config).toEqual({
      kubeconfigPath: undefined,
      watchNamespace: undefined,
      metricsPort: 8081,
      leaderElection: {
        namespace: 'shop-system',
        name: 'shop-operator',
        timings: { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 },
      },
      resyncMs: 1_800_000,
      logLevel: 'INFO',
      identity: 'shop-operator-7d9f-x2',
      jobHistoryLimit: 3,
      podStartTimeoutMs: 300_000,
      requestTimeoutMs: 30_000,
      passTimeoutMs: 120_000,
      rolloutPace: { batchSize: 5, intervalMs: 60_000 },
    });
  });

  it('outside a cluster: a kubeconfig file and the Lease namespace named explicitly', () => {
    const config = loadConfig(
      {
        KUBECONFIG: '/home/me/.kube/config',
        WATCH_NAMESPACE: 'shops',
        LEASE_NAMESPACE: 'shops',
        LEASE_NAME: 'my-lease',
        METRICS_PORT: '9000',
        RESYNC_SECONDS: '60',
        LOG_LEVEL: 'warning',
        POD_START_TIMEOUT_SECONDS: '120',
        ROLLOUT_BATCH_SIZE: '2',
        ROLLOUT_INTERVAL_SECONDS: '0',
      },
      outsideCluster,
    );
    expect(config).toMatchObject({
      kubeconfigPath: '/home/me/.kube/config',
      watchNamespace: 'shops',
      metricsPort: 9000,
      resyncMs: 60_000,
      logLevel: 'WARNING',
      podStartTimeoutMs: 120_000,
      rolloutPace: { batchSize: 2, intervalMs: 0 },
    });
    expect(config.leaderElection).toMatchObject({ namespace: 'shops', name: 'my-lease' });
    expect(config.identity).toMatch(/^laptop-[0-9a-f]{8}$/);
  });

  it('without leader election needs no Lease namespace', () => {
    expect(loadConfig({ KUBECONFIG: '/home/me/.kube/config', LEADER_ELECTION: 'false' }, outsideCluster).leaderElection).toBeUndefined();
  });

  it('RUNBOOK_BASE_URL: an http(s) URL, ending in / so the runbook paths go below it', () => {
    const base = (value: string) =>
      loadConfig({ KUBECONFIG: '/home/me/.kube/config', LEADER_ELECTION: 'false', RUNBOOK_BASE_URL: value }, outsideCluster).runbookBaseUrl;
    expect(base('https://github.com/acme/shop/blob/v1.2.0')).toBe('https://github.com/acme/shop/blob/v1.2.0/');
    expect(base('https://runbooks.example.com/shop/')).toBe('https://runbooks.example.com/shop/');
    expect(problemsOf({ KUBECONFIG: '/home/me/.kube/config', LEADER_ELECTION: 'false', RUNBOOK_BASE_URL: 'alerts/runbooks' })).toEqual([
      'RUNBOOK_BASE_URL: must be a URL like https://host:port (got "alerts/runbooks")',
    ]);
  });

  it('JOB_HISTORY_LIMIT: how many Jobs of each kind a Shop keeps, at least 1', () => {
    const outside = { KUBECONFIG: '/home/me/.kube/config', LEADER_ELECTION: 'false' };
    expect(loadConfig({ ...outside, JOB_HISTORY_LIMIT: '10' }, outsideCluster).jobHistoryLimit).toBe(10);
    expect(problemsOf({ ...outside, JOB_HISTORY_LIMIT: '0' })).toEqual([
      expect.stringMatching(/^JOB_HISTORY_LIMIT: must be a whole number from 1 to 100/),
    ]);
  });

  it('API_REQUEST_TIMEOUT_SECONDS and PASS_TIMEOUT_SECONDS: a pass outlasts one request', () => {
    const outside = { KUBECONFIG: '/home/me/.kube/config', LEADER_ELECTION: 'false' };
    expect(loadConfig({ ...outside, API_REQUEST_TIMEOUT_SECONDS: '5', PASS_TIMEOUT_SECONDS: '20' }, outsideCluster)).toMatchObject({
      requestTimeoutMs: 5_000,
      passTimeoutMs: 20_000,
    });
    expect(problemsOf({ ...outside, API_REQUEST_TIMEOUT_SECONDS: 'soon' })).toEqual([
      expect.stringMatching(/^API_REQUEST_TIMEOUT_SECONDS: must be a whole number from 1 to 600/),
    ]);
    expect(problemsOf({ ...outside, PASS_TIMEOUT_SECONDS: '30' })).toEqual([
      'PASS_TIMEOUT_SECONDS: must be more than API_REQUEST_TIMEOUT_SECONDS (30)',
    ]);
  });

  it('SECRET_NAMESPACES: namespace names, and only for an operator of all namespaces', () => {
    const outside = { KUBECONFIG: '/home/me/.kube/config', LEADER_ELECTION: 'false' };
    expect(loadConfig(outside, outsideCluster).secretNamespaces).toBeUndefined();
    expect(loadConfig({ ...outside, SECRET_NAMESPACES: 'eu, us' }, outsideCluster).secretNamespaces).toEqual(['eu', 'us']);
    expect(problemsOf({ ...outside, SECRET_NAMESPACES: 'eu,US' })).toEqual([
      'SECRET_NAMESPACES: must be namespace names separated by commas (got "eu,US")',
    ]);
    expect(problemsOf({ ...outside, SECRET_NAMESPACES: 'eu', WATCH_NAMESPACE: 'shops' })).toEqual([
      expect.stringMatching(/^SECRET_NAMESPACES: is for an operator of all namespaces/),
    ]);
  });

  it('names each bad variable in its own line', () => {
    expect(problemsOf({ METRICS_PORT: '80a', LEADER_ELECTION: 'yes', WATCH_NAMESPACE: 'Shops', POD_START_TIMEOUT_SECONDS: '0' })).toEqual([
      'KUBECONFIG: is required outside a cluster (KUBERNETES_SERVICE_HOST is not set)',
      'WATCH_NAMESPACE: must be a namespace name (got "Shops")',
      'METRICS_PORT: must be a whole number from 0 to 65535 (got "80a")',
      'POD_START_TIMEOUT_SECONDS: must be a whole number from 1 to 86400 (got "0")',
      'LEADER_ELECTION: must be true or false (got "yes")',
      'LEASE_NAMESPACE: is required with LEADER_ELECTION=true outside a cluster (or set POD_NAMESPACE)',
    ]);
    expect(problemsOf({ KUBECONFIG: '/nowhere' })).toContain('KUBECONFIG: no such file: /nowhere');
    expect(
      problemsOf({ KUBERNETES_SERVICE_HOST: '10.0.0.1', LEASE_DURATION_SECONDS: '5', LEASE_RENEW_DEADLINE_SECONDS: '5' }, inCluster),
    ).toEqual(['LEASE_RENEW_DEADLINE_SECONDS: must be less than LEASE_DURATION_SECONDS']);
    expect(
      problemsOf({ KUBERNETES_SERVICE_HOST: '10.0.0.1', LEASE_RENEW_DEADLINE_SECONDS: '2', LEASE_RETRY_PERIOD_SECONDS: '2' }, inCluster),
    ).toEqual(['LEASE_RENEW_DEADLINE_SECONDS: must be more than LEASE_RETRY_PERIOD_SECONDS']);
  });
});
