import { mkdtemp, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { tmpdir } from 'node:os';
import { runApi } from '../services/api/test/run-api.ts';
import { load, type LoadResult } from './load.ts';
import { startBare } from './servers.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const HEALTH_TARGET = 0.9;
const GRAPHQL_TARGET = 0.6;
const IDLE_RSS_TARGET_MB = 150;

function emit(figure: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ bench: 'health', ...figure })}\n`);
}

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
  return Math.round(kb / 1024);
}

/** The rate counts 2xx answers only; a run (or its baseline) with refused or failed answers cannot meet its goal. */
function report(target: string, result: LoadResult, baseline: LoadResult, goal?: number): void {
  const ratio = Math.round((result.okPerSec / baseline.okPerSec) * 100) / 100;
  const clean = [result, baseline].every((run) => run.non2xx === 0 && run.errors === 0);
  emit({
    target,
    ok_req_per_s: result.okPerSec,
    p50_ms: result.p50Ms,
    p99_ms: result.p99Ms,
    non_2xx: result.non2xx,
    errors: result.errors,
    ratio_to_bare: ratio,
    ...(goal === undefined ? {} : { goal_ratio: goal, meets_goal: clean && ratio >= goal }),
  });
}

/** GET /health and POST /graphql { health } against a bare Fastify route measured in the same run. */
export async function benchHealth(): Promise<void> {
  const workDir = await mkdtemp(path.join(tmpdir(), 'shop-bench-'));
  const bare = await startBare();
  // Embedded defaults, access log at INFO: the api as `npm start` runs it.
  const api = runApi({ PORT: '0' }, workDir);
  try {
    const url = await api.listening();
    const pid = api.child.pid as number;
    emit({ figure: 'api_idle_rss_mb', value: await rssMb(pid), goal_max: IDLE_RSS_TARGET_MB });

    const baseline = await load({ url: `${bare.url}/bare`, seconds: SECONDS });
    report('bare fastify route', baseline, baseline);
    report('GET /health', await load({ url: `${url}/health`, seconds: SECONDS }), baseline, HEALTH_TARGET);
    const query = JSON.stringify({ query: '{ health }' });
    const graphql = await load({ url: `${url}/graphql`, method: 'POST', body: query, seconds: SECONDS });
    report('POST /graphql { health }', graphql, baseline, GRAPHQL_TARGET);
    emit({ figure: 'api_rss_after_load_mb', value: await rssMb(pid) });
  } finally {
    bare.stop();
    api.child.kill('SIGTERM');
    await api.exited();
    await rm(workDir, { recursive: true, force: true });
  }
}
