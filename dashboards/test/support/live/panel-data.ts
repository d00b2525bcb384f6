// What a Prometheus server answers to each panel's queries.
import type { PanelQueries } from './panel-queries.ts';
import type { PrometheusServer, Sample } from './prometheus-server.ts';

export interface QueryResult {
  readonly expr: string;
  readonly samples: readonly Sample[];
}

export interface PanelResult {
  readonly panel: string;
  readonly queries: readonly QueryResult[];
}

/** A query returns data when at least one series has a value to draw: `NaN` (e.g. 0/0) draws nothing. */
function returnsData(samples: readonly Sample[]): boolean {
  return samples.some((sample) => sample.value !== 'NaN');
}

/** A panel has data when every one of its queries returns data. */
export function panelHasData(result: PanelResult): boolean {
  return result.queries.every((query) => returnsData(query.samples));
}

export async function evaluatePanels(prometheus: PrometheusServer, panels: readonly PanelQueries[]): Promise<PanelResult[]> {
  return Promise.all(
    panels.map(async ({ panel, queries }) => ({
      panel,
      queries: await Promise.all(queries.map(async (expr) => ({ expr, samples: await prometheus.query(expr) }))),
    })),
  );
}

/** One line per panel: its name, then per query the number of series and their first values. */
export function describePanels(results: readonly PanelResult[]): string {
  return results
    .map((result) => {
      const queries = result.queries.map(({ samples }) =>
        returnsData(samples)
          ? `${samples.length} series (${samples
              .slice(0, 3)
              .map((s) => s.value)
              .join(', ')})`
          : 'no data',
      );
      return `${panelHasData(result) ? 'data   ' : 'NO DATA'} ${result.panel}: ${queries.join(' | ')}`;
    })
    .join('\n');
}
