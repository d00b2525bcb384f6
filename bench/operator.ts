// The operator against a real kube-apiserver (kine underneath) with the real kube-controller-manager
// and kube-scheduler, and the node agent standing in for the kubelet (test/infra/kube-cluster.ts): the
// Deployment controller makes ReplicaSets and pods, the scheduler binds them, the agent reports them
// running and ready, and a migration Job's pod exits 0 so the Job controller completes it.
import { availableParallelism, loadavg } from 'node:os';
import { startTestCluster, type TestCluster } from '../operator/test/support/test-cluster.ts';
import type { Pod } from '../test/infra/node-agent.ts';
import { measureCrashLoop, type BackOff } from './operator/crash-loop.ts';
import { apiRequests, operatorSamples, requestsSince } from './operator/metrics.ts';
import { memoryMb, openSockets, startOperatorProcess, type OperatorProcess } from './operator/operator-process.ts';
import { emit, note, percentile, round1, seconds } from './operator/report.ts';
import { measureSecretRoll } from './operator/secret-roll.ts';
import { createAndWait, expectChildren, prepare, trackShops, type ShopName } from './operator/shops.ts';
import type { Tracker } from './operator/watch.ts';
import { baseline, phases, timeline, trackWorkloads, type Workloads } from './operator/workloads.ts';

const ONE_SHOP_GOAL_S = 2;
const FIFTY_SHOPS_GOAL_S = 30;
const MANY_SHOPS_GOAL_S = 60;
const RSS_GOAL_MB = 200;
const MANY_RSS_GOAL_MB = 250;
const CRASH_LOOP_GOAL_S = 30;
const SHOPS = Number(process.env.BENCH_SHOPS ?? 50);
const MANY_SHOPS = Number(process.env.BENCH_MANY_SHOPS ?? 200);
const NAMESPACES = 5;
const MANY_NAMESPACES = 20;
const ONE_SHOP_SAMPLES = 3;
/** A kubelet's back-off between restarts of a crashing container. */
const KUBELET_BACK_OFF: BackOff = { initialMs: 10_000, maxMs: 300_000 };
const timeouts = { one: 60_000, shops: 180_000, many: 300_000, roll: 60_000, crashLoop: 240_000 };

/** Pods run and are ready, but a Job's pod exits 0 (its migrations applied). */
const outcome = (pod: Pod) => (pod.metadata.labels?.['batch.kubernetes.io/job-name'] === undefined ? 'running' : 'exit 0');

const host = () => ({ cpus: availableParallelism(), load_avg_1m: round1(loadavg()[0] as number) });

export async function benchOperator(): Promise<void> {
  const cluster: TestCluster = await startTestCluster({ defaultOutcome: outcome, crashLoopBackOff: KUBELET_BACK_OFF });
  let operator: OperatorProcess | undefined;
  let workloads: Workloads | undefined;
  let shops: Tracker | undefined;
  try {
    workloads = await trackWorkloads(cluster);
    shops = await trackShops(cluster);
    // Each single Shop alone in its namespace: the secret roll and the crash loop use two of them.
    const singles = await prepare(cluster, 'one', 1 + ONE_SHOP_SAMPLES, 1 + ONE_SHOP_SAMPLES);
    const fifty = await prepare(cluster, 'fifty', NAMESPACES, SHOPS);
    const many = await prepare(cluster, 'many', MANY_NAMESPACES, MANY_SHOPS);
    const direct = await prepare(cluster, 'baseline', NAMESPACES, SHOPS);

    operator = await startOperatorProcess(cluster);
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // its informers' first lists
    const idle = await memoryMb(operator.pid);
    const heap = operator.heap;
    note('operator started', { pid: operator.pid, metricsPort: operator.metricsPort, rssMb: idle.now, ...heap });
    const running = { operator, workloads };
    const failure = () => running.operator.failure() ?? running.workloads.jobs.failure() ?? running.workloads.deployments.failure();

    // (1) One Shop at a time. The first after the operator started pays for its informers' first list
    // and a cold JIT; the figure is the median of the ones after it, as a long-running operator sees them.
    const onesMs: number[] = [];
    let oneTimeline: Record<string, number> = {};
    for (const shop of singles) {
      const run = await createAndWait(cluster, shops, [shop], { timeoutMs: timeouts.one, failure });
      onesMs.push(run.totalMs);
      oneTimeline = timeline(workloads, shop.namespace, run.startedAt, run.startedAt + run.totalMs);
    }
    await expectChildren(cluster, singles);
    const [firstMs, ...warmMs] = onesMs as [number, ...number[]];
    const oneS = seconds(percentile(warmMs, 50));
    emit({
      figure: 'one_shop_create_to_ready_s',
      value: oneS,
      unit: 's',
      goal: `< ${ONE_SHOP_GOAL_S}`,
      meets_goal: oneS < ONE_SHOP_GOAL_S,
      samples_s: warmMs.map(seconds),
      first_after_start_s: seconds(firstMs),
      // Created and done (Job Complete, Deployment rolled out) by the controllers, in ms from the Shop's creation.
      last_timeline_ms: oneTimeline,
    });

    // (2) SHOPS Shops created at once.
    const metricsBefore = await operatorSamples(operator);
    const requestsBefore = await apiRequests(cluster);
    const hostBefore = host();
    const run = await createAndWait(cluster, shops, fifty, { timeoutMs: timeouts.shops, failure });
    const fiftyPhases = phases(workloads, fifty, run.startedAt, run.readyAt);
    const requests = requestsSince(requestsBefore, await apiRequests(cluster));
    const metricsAfter = await operatorSamples(operator);
    const memory = await memoryMb(operator.pid);
    note('operator sockets open at the end of the run', { sockets: await openSockets(operator.pid) });
    note(
      `${SHOPS} Shops: API requests during the run by verb and resource (every client: operator, controllers, scheduler, agent, bench)`,
      requests.byKind,
    );
    await expectChildren(cluster, fifty);
    const delta = (sample: string) => (metricsAfter.get(sample) ?? 0) - (metricsBefore.get(sample) ?? 0);
    const passes = delta('shop_operator_reconcile_total{result="success"}') + delta('shop_operator_reconcile_total{result="error"}');
    emit({
      figure: 'operator_peak_rss_mb',
      value: memory.peak,
      unit: 'MB',
      goal: `< ${RSS_GOAL_MB}`,
      meets_goal: memory.peak < RSS_GOAL_MB,
      after: `${1 + ONE_SHOP_SAMPLES + SHOPS} Shops`,
      rss_after_start_mb: idle.now,
      rss_at_end_mb: memory.now,
      node_flags: heap.nodeFlags,
      heap_limit_mb: heap.limitMb,
    });

    // (3) A referenced Secret changes: the single Shop's pods roll.
    const roll = await measureSecretRoll(cluster, workloads, singles[1] as ShopName, { timeoutMs: timeouts.roll, failure });
    emit({
      figure: 'secret_change_to_pods_rolled_s',
      value: seconds(roll.totalMs),
      unit: 's',
      goal: null,
      meets_goal: null,
      operator_s: seconds(roll.operatorMs),
      controllers_and_agent_s: seconds(roll.totalMs - roll.operatorMs),
      operator_share: Math.round((roll.operatorMs / roll.totalMs) * 100) / 100,
      deployments: roll.deployments,
      pods_replaced: roll.podsReplaced,
    });

    // (4) MANY_SHOPS more Shops at once, on top of the ones before.
    const manyHost = host();
    const manyRun = await createAndWait(cluster, shops, many, { timeoutMs: timeouts.many, failure });
    const manyMemory = await memoryMb(operator.pid);
    await expectChildren(cluster, many);
    const manyS = seconds(manyRun.totalMs);
    emit({
      figure: `${MANY_SHOPS}_shops_create_to_all_ready_s`,
      value: manyS,
      unit: 's',
      goal: `< ${MANY_SHOPS_GOAL_S}`,
      meets_goal: manyS < MANY_SHOPS_GOAL_S,
      per_shop_p50_s: seconds(percentile(manyRun.eachMs, 50)),
      first_ready_s: seconds(Math.min(...manyRun.eachMs)),
      shops_already_there: 1 + ONE_SHOP_SAMPLES + SHOPS,
      phases: phases(workloads, many, manyRun.startedAt, manyRun.readyAt),
      host: manyHost,
    });
    emit({
      figure: `operator_peak_rss_${MANY_SHOPS}_shops_mb`,
      value: manyMemory.peak,
      unit: 'MB',
      goal: `< ${MANY_RSS_GOAL_MB}`,
      meets_goal: manyMemory.peak < MANY_RSS_GOAL_MB,
      after: `${1 + ONE_SHOP_SAMPLES + SHOPS + MANY_SHOPS} Shops`,
      rss_at_end_mb: manyMemory.now,
    });

    // (5) The api's image crashes on start, with a kubelet's back-off between restarts.
    const crash = await measureCrashLoop(cluster, shops, singles[2] as ShopName, KUBELET_BACK_OFF, {
      timeoutMs: timeouts.crashLoop,
      failure,
    });
    const crashS = seconds(crash.totalMs);
    emit({
      figure: 'crash_loop_to_degraded_s',
      value: crashS,
      unit: 's',
      goal: `< ${CRASH_LOOP_GOAL_S}`,
      meets_goal: crashS < CRASH_LOOP_GOAL_S,
      ...(crashS < CRASH_LOOP_GOAL_S
        ? {}
        : {
            why: `the operator declares a crash loop after ${crash.restartsMs.length} restart(s) (CRASH_LOOP_RESTARTS); a kubelet waits ${seconds(crash.modelBackOffMs)} s of back-off before the last of them, more than the goal`,
          }),
      // The cost model: back-off (the kubelet's schedule, not the operator's) + the operator's detection.
      back_off_model_s: seconds(crash.modelBackOffMs),
      restarts_reported_s: crash.restartsMs.map(seconds),
      operator_detection_s: seconds(crash.detectionMs),
      pods: crash.pods,
    });

    await operator.stop();
    const warnings = operator.warnings();
    operator = undefined;
    if (warnings.length > 0) note(`the operator logged ${warnings.length} warnings`, { first: warnings.slice(0, 3) });

    // (6) The baseline, in the same run and cluster, with the operator stopped: the same objects written
    // directly, each step waiting for the real controllers as the operator's passes do.
    const baselineBefore = await apiRequests(cluster);
    const baselineMs = await baseline(cluster, workloads, direct, {
      timeoutMs: timeouts.shops,
      failure: () => running.workloads.jobs.failure() ?? running.workloads.deployments.failure(),
    });
    const baselineRequests = requestsSince(baselineBefore, await apiRequests(cluster)).total;
    await expectChildren(cluster, direct);
    emit({
      figure: 'baseline_controllers_only_s',
      value: seconds(baselineMs),
      unit: 's',
      goal: null,
      meets_goal: null,
      what: `the same ${SHOPS} Shops' objects written directly, concurrently, each step waiting for the controllers and the agent; no operator`,
      api_requests_per_shop_all_clients: round1(baselineRequests / SHOPS),
    });
    const fiftyS = seconds(run.totalMs);
    emit({
      figure: `${SHOPS}_shops_create_to_all_ready_s`,
      value: fiftyS,
      unit: 's',
      goal: `< ${FIFTY_SHOPS_GOAL_S}`,
      meets_goal: fiftyS < FIFTY_SHOPS_GOAL_S,
      ratio_to_baseline: round1(run.totalMs / baselineMs),
      per_shop_p50_s: seconds(percentile(run.eachMs, 50)),
      first_ready_s: seconds(Math.min(...run.eachMs)),
      phases: fiftyPhases,
      passes_per_shop: round1(passes / SHOPS),
      mean_pass_ms: Math.round((delta('shop_operator_reconcile_duration_seconds_sum') / Math.max(1, passes)) * 1000),
      operator_cpu_s: round1(delta('process_cpu_seconds_total')),
      api_requests_per_shop_all_clients: round1(requests.total / SHOPS),
      // The operator, kube-apiserver, kine, the controllers, the scheduler, the agent and this process share the host.
      host: hostBefore,
    });
  } finally {
    await operator?.stop();
    await workloads?.stop().catch(() => {});
    await shops?.stop().catch(() => {});
    await cluster.dispose();
  }
}
