import { disabledLogger } from '@shop/runtime';
import { startOperator, type OperatorOptions, type RunningOperator } from '../../src/operator.ts';
import type { TestCluster } from './test-cluster.ts';
import { testRender } from './test-renderer.ts';

/** The operator in this process against the test cluster, with short backoffs and no log output. */
export function runOperator(cluster: TestCluster, options: Partial<OperatorOptions> = {}): Promise<RunningOperator> {
  return startOperator({
    kubeConfig: cluster.kubeConfig(),
    render: testRender,
    metricsPort: 0,
    identity: 'operator-under-test',
    backoff: { initialMs: 100, maxMs: 2_000 },
    logger: disabledLogger(),
    ...options,
  });
}

/** The value of one sample in the operator's /metrics, e.g. `shop_operator_reconcile_total{result="success"}`. */
export async function metricValue(operator: RunningOperator, sample: string): Promise<number | undefined> {
  const text = await (await fetch(`http://127.0.0.1:${operator.metricsPort}/metrics`)).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${sample} `));
  return line === undefined ? undefined : Number(line.slice(sample.length + 1));
}
