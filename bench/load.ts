import autocannon from 'autocannon';

export interface LoadResult {
  /** 2xx answers per second: a refused (429) or failed answer is not throughput. */
  readonly okPerSec: number;
  /** 2xx answers in all. */
  readonly ok: number;
  /** Over every answer, refused ones included. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Answers with another status, e.g. 429 from a rate limit. */
  readonly non2xx: number;
  /** Connection errors and timeouts: no answer at all. */
  readonly errors: number;
}

export interface LoadOptions {
  readonly url: string;
  readonly method?: 'GET' | 'POST';
  readonly body?: string;
  readonly seconds: number;
  readonly connections?: number;
  /** Requests per second across every connection (open to a fixed rate); unlimited by default. */
  readonly ratePerSec?: number;
  /** Of load first, not measured; 2 s by default, 0 when the caller warmed up already. */
  readonly warmUpSeconds?: number;
}

/** Drives one URL with autocannon after a warm-up (JIT, GraphQL query compilation). */
export async function load(options: LoadOptions): Promise<LoadResult> {
  const request = {
    url: options.url,
    method: options.method ?? 'GET',
    body: options.body,
    headers: options.body ? { 'content-type': 'application/json' } : {},
    connections: options.connections ?? 20,
    ...(options.ratePerSec === undefined ? {} : { overallRate: options.ratePerSec }),
  };
  const warmUpSeconds = options.warmUpSeconds ?? 2;
  if (warmUpSeconds > 0) await autocannon({ ...request, duration: warmUpSeconds });
  const result = await autocannon({ ...request, duration: options.seconds });
  return {
    okPerSec: Math.round(result['2xx'] / result.duration),
    ok: result['2xx'],
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}
