// From an image that crashes on start to the Shop's Degraded condition, with the kubelet's back-off:
// the node agent restarts the crashing container after 10 s, 20 s, 40 s, ... and the operator declares
// the crash loop once a container has restarted CRASH_LOOP_RESTARTS times.
import { CRASH_LOOP_RESTARTS } from '../../operator/src/kube/pod-failures.ts';
import type { TestCluster } from '../../operator/test/support/test-cluster.ts';
import type { Pod } from '../../test/infra/node-agent.ts';
import { directPod } from '../../test/infra/workloads.ts';
import { conditionOf, shopKeyOf, type ShopName } from './shops.ts';
import { track, type Tracker, type WaitOptions, type Watched } from './watch.ts';

export interface BackOff {
  readonly initialMs: number;
  readonly maxMs: number;
}

export interface CrashLoop {
  /** The pods' containers crashing to the Shop's Degraded (CrashLoopBackOff) condition. */
  readonly totalMs: number;
  /** When the node agent reported each restart, 1 to CRASH_LOOP_RESTARTS, in ms from the crash. */
  readonly restartsMs: number[];
  /** The back-off before the restart that crosses the threshold, by the kubelet's schedule. */
  readonly modelBackOffMs: number;
  /** From that restart reported to Degraded: the operator's detection. */
  readonly detectionMs: number;
  readonly pods: number;
}

const restartCount = (pod: Watched): number =>
  Math.max(
    0,
    ...((pod.status as { containerStatuses?: Array<{ restartCount?: number }> } | undefined)?.containerStatuses ?? []).map(
      (container) => container.restartCount ?? 0,
    ),
  );

/** Sum of the delays before restarts 1..n: `initialMs`, doubling, at most `maxMs` each. */
export function backOffBefore(restarts: number, { initialMs, maxMs }: BackOff): number {
  let total = 0;
  for (let i = 0; i < restarts; i += 1) total += Math.min(initialMs * 2 ** i, maxMs);
  return total;
}

/** Makes the api pods of `shop` (Ready, alone in its namespace) crash and waits for its Degraded condition. */
export async function measureCrashLoop(
  cluster: TestCluster,
  shops: Tracker,
  shop: ShopName,
  backOff: BackOff,
  wait: Omit<WaitOptions, 'what'>,
): Promise<CrashLoop> {
  const pods: Tracker = await track(cluster, `/api/v1/namespaces/${shop.namespace}/pods`, {
    labelSelector: `app.kubernetes.io/component=api`,
    describe: (pod) => (pod ? JSON.stringify(pod.status ?? null) : '(not seen)'),
  });
  try {
    const api = [...pods.latest.values()];
    if (api.length === 0) throw new Error(`no api pods of ${shop.name} in ${shop.namespace}`);
    const keys = api.map((pod) => `${pod.metadata.namespace}/${pod.metadata.name}`);
    const startedAt = performance.now();
    const degraded = shops.until(
      [shopKeyOf(shop)],
      (object) => conditionOf(object, 'Degraded')?.status === 'True' && conditionOf(object, 'Degraded')?.reason === 'CrashLoopBackOff',
      {
        ...wait,
        what: `${shop.name} to be Degraded with CrashLoopBackOff`,
      },
    );
    // Any pod's container reaching the count is enough for the operator: the first one to.
    const restarts = Array.from({ length: CRASH_LOOP_RESTARTS }, (_, i) =>
      Promise.any(
        keys.map((key) => pods.until([key], (pod) => restartCount(pod) >= i + 1, { ...wait, what: `restart ${i + 1} of ${key}` })),
      ).then((met) => Math.min(...met.values())),
    );
    for (const wait of [degraded, ...restarts]) wait.catch(() => {}); // awaited below, or abandoned when an earlier one fails
    for (const pod of api) await directPod(cluster.kube, pod as unknown as Pod, 'exit 1', 'Error: bench: the image crashes on start');
    const degradedAt = (await degraded).get(shopKeyOf(shop)) as number;
    const restartsAt = await Promise.all(restarts);
    const lastRestart = restartsAt.at(-1) as number;
    return {
      totalMs: degradedAt - startedAt,
      restartsMs: restartsAt.map((at) => at - startedAt),
      modelBackOffMs: backOffBefore(CRASH_LOOP_RESTARTS, backOff),
      detectionMs: degradedAt - lastRestart,
      pods: api.length,
    };
  } finally {
    await pods.stop();
  }
}
