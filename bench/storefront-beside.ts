// The storefront beside other work (the worker's sweep, the secrets' rewrap): its maximum, measured in
// the same run with a closed-loop sweep of shoppers, and the open-loop figure at a share of it.
import { OPERATIONS, type PhaseResult } from './shoppers.ts';

export interface LevelSweep {
  readonly levels: readonly number[];
  /** While the last level still gained this share over the best before it, the sweep doubles it… */
  readonly stillRising: number;
  /** …up to this many shoppers. */
  readonly maxLevel: number;
}

/**
 * Runs `run` at each level and returns the best level's result: the maximum. A level with failed
 * answers cannot be the maximum (the storefront did not serve it), and while the last level still
 * gains, the maximum is further on: half of an underestimate would flatter the latencies.
 */
export async function maximumOf<T extends Pick<PhaseResult, 'reqPerSec' | 'errors'>>(
  sweep: LevelSweep,
  run: (level: number) => Promise<T>,
): Promise<{ level: number; result: T }> {
  let best: { level: number; result: T } | undefined;
  const levels = [...sweep.levels];
  for (let index = 0; index < levels.length; index += 1) {
    const level = levels[index] as number;
    const result = await run(level);
    const gained = best === undefined || result.reqPerSec > best.result.reqPerSec * (1 + sweep.stillRising);
    if (result.errors === 0 && (best === undefined || result.reqPerSec > best.result.reqPerSec)) best = { level, result };
    if (index === levels.length - 1 && gained && levels.length > 1 && level * 2 <= sweep.maxLevel) levels.push(level * 2);
  }
  if (best === undefined)
    throw new Error(`no level of ${levels.join(', ')} shoppers ran without failed answers: there is no maximum to report`);
  return best;
}

/** An open loop's rate, errors and latencies, overall and per operation; the goal is met only without errors. */
export function openLoopFields(result: PhaseResult, offeredPerSec: number, goalP95Ms: number): Record<string, unknown> {
  const byOperation = (pick: (operation: PhaseResult['byOperation'][keyof PhaseResult['byOperation']]) => number) =>
    Object.fromEntries(OPERATIONS.map((operation) => [operation, pick(result.byOperation[operation])]));
  return {
    offered_req_per_s: offeredPerSec,
    achieved_req_per_s: result.reqPerSec,
    seconds: result.seconds,
    requests: result.requests,
    errors: result.errors,
    errors_by_operation: byOperation((op) => op.errors),
    p50_ms: result.all.p50Ms,
    p95_ms: result.all.p95Ms,
    p99_ms: result.all.p99Ms,
    p95_ms_by_operation: byOperation((op) => op.p95Ms),
    p99_ms_by_operation: byOperation((op) => op.p99Ms),
    generator_send_lag_p99_ms: result.sendLag?.p99Ms,
    goal_p95_ms: goalP95Ms,
    meets_goal:
      result.errors === 0 &&
      result.all.p95Ms < goalP95Ms &&
      OPERATIONS.every((operation) => result.byOperation[operation].p95Ms < goalP95Ms),
  };
}
