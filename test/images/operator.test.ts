// Smoke tests of the built shop/operator image: it refuses a bad configuration with exit code 78,
// and, given a kubeconfig of a real API server (with the Shop CRD), it starts, answers /healthz
// and /metrics from outside and stops on SIGTERM with exit code 0.
import { chmod, copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltImage } from '../../images/build/build-images.ts';
import { startTestCluster, type TestCluster } from '../../operator/test/support/test-cluster.ts';
import { freePort } from '../infra/proc.ts';
import { eventually } from '../support/wait.ts';
import { BUILD_TIMEOUT_MS, openBuiltImage } from './support/built-image.ts';
import { imageChecks } from './support/image-checks.ts';
import type { ImageContainer } from './support/image-container.ts';

let built: BuiltImage;
let container: ImageContainer;
let cluster: TestCluster;

beforeAll(async () => {
  ({ built, container } = await openBuiltImage('operator'));
  cluster = await startTestCluster();
}, BUILD_TIMEOUT_MS);

afterAll(async () => {
  await container?.dispose();
  await cluster?.dispose();
});

describe('the shop/operator image', () => {
  imageChecks(() => ({ built, container }));

  it('refuses to start outside a cluster without KUBECONFIG, with exit code 78', async () => {
    const { code, output } = await container.run(container.config.Entrypoint);
    expect(code, output).toBe(78);
    expect(output).toMatch(/KUBECONFIG: is required outside a cluster/);
  });

  it('starts against a real API server: /healthz and /metrics answer from outside, SIGTERM stops it with 0', async () => {
    // The image's user reads the kubeconfig: a readable copy in a folder of its own, mounted read-only.
    const kubeDir = await mkdtemp(join(tmpdir(), 'shop-image-kube-'));
    await copyFile(cluster.server.kubeconfigPath(), join(kubeDir, 'config'));
    await chmod(kubeDir, 0o755);
    await chmod(join(kubeDir, 'config'), 0o644);
    const port = await freePort();
    const operator = container.start(container.config.Entrypoint, {
      env: { KUBECONFIG: '/tmp/kube/config', METRICS_PORT: String(port), LEADER_ELECTION: 'false' },
      mounts: [`type=bind,src=${kubeDir},dst=/tmp/kube,ro`],
    });
    try {
      // Until it logs "started": its SIGTERM handler is in place from then on.
      await eventually(
        async () => {
          const response = await fetch(`http://127.0.0.1:${port}/healthz`);
          if (!response.ok) throw new Error(`/healthz answered ${response.status}`);
          if (!operator.output().includes('"msg":"started"')) throw new Error('the operator has not logged "started" yet');
        },
        { timeoutMs: 60_000, intervalMs: 250, abortReason: () => operator.exitReason() },
      );
      const metrics = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toMatch(/^# TYPE /m);
    } finally {
      const { code, output } = await operator.stop();
      await rm(kubeDir, { recursive: true });
      expect(code, output).toBe(0);
    }
  });
});
