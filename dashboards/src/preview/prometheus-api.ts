// The parts of Prometheus's HTTP API (/api/v1) a dashboard preview asks: range and instant queries and
// label values.
export interface RangeSeries {
  readonly metric: Readonly<Record<string, string>>;
  /** `[unix seconds, value as Prometheus writes it: a number, NaN, +Inf]` */
  readonly values: ReadonlyArray<readonly [number, string]>;
}

export interface InstantSeries {
  readonly metric: Readonly<Record<string, string>>;
  readonly value: readonly [number, string];
}

export interface RangeWindow {
  /** Unix seconds. */
  readonly start: number;
  readonly end: number;
  readonly stepSeconds: number;
}

interface ApiAnswer<T> {
  readonly status: 'success' | 'error';
  readonly data?: T;
  readonly error?: string;
}

/** GETs an /api/v1 URL and returns its `data`; rejects with the status and Prometheus's error otherwise. */
export async function apiGet<T>(url: string): Promise<T> {
  const response = await fetch(url);
  const answer = (await response.json()) as ApiAnswer<T>;
  if (answer.status !== 'success' || answer.data === undefined)
    throw new Error(`${url} answered ${response.status}: ${answer.error ?? 'no data'}`);
  return answer.data;
}

export class PrometheusApi {
  readonly url: string;

  constructor(url: string) {
    this.url = url.replace(/\/+$/, '');
  }

  /** Rejects with one line naming PROMETHEUS_URL when nothing answers there, or something that is not Prometheus. */
  async checkReachable(): Promise<void> {
    await this.#get('/api/v1/query', { query: '1' }).catch((error: unknown) => {
      const cause =
        error instanceof Error && error.cause instanceof Error
          ? error.cause.message
          : error instanceof Error
            ? error.message
            : String(error);
      throw new Error(`PROMETHEUS_URL ${this.url} does not answer as Prometheus: ${cause}`);
    });
  }

  async queryRange(expr: string, window: RangeWindow): Promise<RangeSeries[]> {
    const params = { query: expr, start: String(window.start), end: String(window.end), step: String(window.stepSeconds) };
    return (await this.#get<{ result: RangeSeries[] }>('/api/v1/query_range', params)).result;
  }

  async query(expr: string, time: number): Promise<InstantSeries[]> {
    return (await this.#get<{ result: InstantSeries[] }>('/api/v1/query', { query: expr, time: String(time) })).result;
  }

  /** The values of `label` on the series `selector` matches (all series when it is undefined), sorted. */
  async labelValues(label: string, selector: string | undefined): Promise<string[]> {
    const values = await this.#get<string[]>(
      `/api/v1/label/${encodeURIComponent(label)}/values`,
      selector === undefined ? {} : { 'match[]': selector },
    );
    return values.sort();
  }

  #get<T>(path: string, params: Record<string, string>): Promise<T> {
    return apiGet<T>(`${this.url}${path}?${new URLSearchParams(params)}`);
  }
}
