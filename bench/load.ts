import autocannon from 'autocannon';

export interface LoadResult {
  readonly reqPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly errors: number;
}

export interface LoadOptions {
  readonly url: string;
  readonly method?: 'GET' | 'POST';
  readonly body?: string;
  readonly seconds: number;
  readonly connections?: number;
}

/** Drives one URL with autocannon after a short warm-up (JIT, GraphQL query compilation). */
export async function load(options: LoadOptions): Promise<LoadResult> {
  const request = {
    url: options.url,
    method: options.method ?? 'GET',
    body: options.body,
    headers: options.body ? { 'content-type': 'application/json' } : {},
    connections: options.connections ?? 20,
  };
  await autocannon({ ...request, duration: 2 });
  const result = await autocannon({ ...request, duration: options.seconds });
  return {
    reqPerSec: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}
