// Prometheus samples: the operator's /metrics and the API server's request counters.
import type { TestCluster } from '../../operator/test/support/test-cluster.ts';
import type { OperatorProcess } from './operator-process.ts';

/** Prometheus samples by full name (labels included), e.g. `shop_operator_reconcile_total{result="success"}`. */
function samples(text: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const space = line.lastIndexOf(' ');
    found.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return found;
}

export async function operatorSamples(operator: OperatorProcess): Promise<Map<string, number>> {
  return samples(await (await fetch(`http://127.0.0.1:${operator.metricsPort}/metrics`)).text());
}

/** The API server's request counter, by verb, resource and subresource; watches (long-lived) and its own requests excluded. */
export async function apiRequests(cluster: TestCluster): Promise<Map<string, number>> {
  const reply = await cluster.kube<string>('GET', '/metrics');
  const byKind = new Map<string, number>();
  for (const [sample, value] of samples(reply.body)) {
    if (!sample.startsWith('apiserver_request_total{')) continue;
    const label = (name: string) => new RegExp(`[{,]${name}="([^"]*)"`).exec(sample)?.[1] ?? '';
    if (label('verb') === 'WATCH') continue;
    // The API server's own: ClusterIP allocation for a new Service, its leases.
    if (label('resource') === 'ipaddresses' || label('resource') === 'leases') continue;
    const key = `${label('verb')} ${label('resource')}${label('subresource') ? `/${label('subresource')}` : ''}`;
    byKind.set(key, (byKind.get(key) ?? 0) + value);
  }
  return byKind;
}

export function requestsSince(
  before: ReadonlyMap<string, number>,
  after: ReadonlyMap<string, number>,
): { total: number; byKind: Record<string, number> } {
  const byKind: Record<string, number> = {};
  let total = 0;
  for (const [key, value] of after) {
    const delta = value - (before.get(key) ?? 0);
    if (delta <= 0) continue;
    byKind[key] = delta;
    total += delta;
  }
  return { total, byKind: Object.fromEntries(Object.entries(byKind).sort(([, a], [, b]) => b - a)) };
}
