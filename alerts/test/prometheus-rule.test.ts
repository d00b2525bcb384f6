import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { installCrd, kubeClient, type KubeRequest } from '../../test/infra/kube-client.ts';
import { startKubeApiServer, type KubeApiServer } from '../../test/infra/kubernetes.ts';
import { prometheusOperatorCrdFile } from '../../test/infra/prometheus.ts';
import { PROMETHEUS_RULE_FILE, TEMPORAL_SERVER_RULE_FILE } from '../src/generate-rules.ts';

interface PrometheusRule {
  metadata: { name: string };
  spec: { groups: Array<{ rules: Array<{ for?: string }> }> };
}

describe('the PrometheusRule on a real API server with the Prometheus Operator CRD', () => {
  let server: KubeApiServer;
  let kube: KubeRequest;
  const namespace = 'alerts-test';
  const rules = `/apis/monitoring.coreos.com/v1/namespaces/${namespace}/prometheusrules`;

  beforeAll(async () => {
    server = await startKubeApiServer();
    kube = kubeClient(server);
    await installCrd(kube, prometheusOperatorCrdFile('prometheusrules'));
    expect((await kube('POST', '/api/v1/namespaces', { metadata: { name: namespace } })).status).toBe(201);
  }, 180_000);

  afterAll(async () => {
    await server?.dispose();
  });

  const committedRule = async (file = PROMETHEUS_RULE_FILE) => parse(await readFile(file, 'utf8')) as PrometheusRule;

  it.each([
    ['alerts/shop.prometheusrule.yaml', PROMETHEUS_RULE_FILE],
    ['alerts/temporal-server.prometheusrule.yaml', TEMPORAL_SERVER_RULE_FILE],
  ])('accepts %s as it is, every rule kept', async (_name, file) => {
    const rule = await committedRule(file);
    const created = await kube<PrometheusRule>('POST', rules, rule);
    expect(created.status).toBe(201);
    expect(created.body.spec).toEqual(rule.spec);
  });

  it('validates what it stores: a malformed duration is refused', async () => {
    const rule = await committedRule();
    rule.metadata.name = 'malformed';
    const [first] = rule.spec.groups[0]?.rules ?? [];
    if (first !== undefined) first.for = 'five minutes';
    const refused = await kube<{ message: string }>('POST', rules, rule);
    expect(refused.status).toBe(422);
    expect(refused.body.message).toMatch(/spec\.groups\[0\]\.rules\[0\]\.for/);
  });
});
