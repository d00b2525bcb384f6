import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CHART_CRD_FILE, CRD_FILE, SHOP_SCHEMA_FILE } from '../../operator/src/crd/generate-crd.ts';
import { renderValuesSchema, VALUES_SCHEMA_FILE } from '../scripts/shop-values-schema.ts';
import { helm, OPERATOR_CHART, SHOP_CHART, valueArgs } from './support/helm.ts';

const CHARTS = [OPERATOR_CHART, SHOP_CHART];

describe('helm lint', () => {
  for (const chart of CHARTS) {
    for (const strict of [false, true]) {
      it(`passes for ${path.basename(chart)}${strict ? ' with --strict' : ''}`, async () => {
        const result = await helm(['lint', chart, ...(strict ? ['--strict'] : [])]);
        expect(result.stderr + result.stdout).toContain('0 chart(s) failed');
        expect(result.code).toBe(0);
      });
    }
  }
});

describe('values.schema.json', () => {
  const rejected: Array<[string, string, Record<string, unknown>, RegExp]> = [
    ['a misspelt top-level key', OPERATOR_CHART, { replica: 3 }, /additional properties 'replica' not allowed/],
    ['a misspelt nested key', OPERATOR_CHART, { leaderElection: { enabeld: false } }, /additional properties 'enabeld' not allowed/],
    [
      'several replicas without leader election',
      OPERATOR_CHART,
      { leaderElection: { enabled: false } },
      /\/replicas': maximum: got 2, want 1/,
    ],
    ['a port out of range', OPERATOR_CHART, { metrics: { port: 70000 } }, /\/metrics\/port/],
    ['a watch namespace that is no namespace name', OPERATOR_CHART, { watchNamespace: 'Shops' }, /\/watchNamespace/],
    ['a misspelt top-level key', SHOP_CHART, { replicas: 3 }, /additional properties 'replicas' not allowed/],
    ['a misspelt component key', SHOP_CHART, { api: { replica: 3 } }, /additional properties 'replica' not allowed/],
    [
      'a misspelt secret reference',
      SHOP_CHART,
      { secrets: { databaseURL: { name: 'db', key: 'url' } } },
      /additional properties 'databaseURL' not allowed/,
    ],
    ['two consumers', SHOP_CHART, { consumer: { replicas: 2 } }, /\/consumer\/replicas': maximum: got 2, want 1/],
    ['a malformed memory quantity', SHOP_CHART, { api: { resources: { limits: { memory: 'lots' } } } }, /\/api\/resources\/limits\/memory/],
    ['a config value that is not a string', SHOP_CHART, { config: { PORT: 3000 } }, /\/config\/PORT/],
    [
      'an S3 endpoint that is no http(s) URL',
      SHOP_CHART,
      { fileStorage: { s3: { endpoint: 's3.example.com', bucket: 'media' } } },
      /\/fileStorage\/s3\/endpoint/,
    ],
    [
      'an s3 section without a bucket',
      SHOP_CHART,
      { fileStorage: { s3: { endpoint: 'https://s3.example.com' } } },
      /\/fileStorage\/s3': missing property 'bucket'/,
    ],
    ['a malformed image tag', SHOP_CHART, { image: { repository: 'registry.example.com/shop/platform', tag: '-1.4' } }, /\/image\/tag/],
  ];
  for (const [what, chart, values, message] of rejected) {
    it(`${path.basename(chart)}: helm lint and helm template reject ${what}`, async () => {
      const lint = await helm(['lint', chart, ...valueArgs(values)]);
      expect(lint.code).not.toBe(0);
      expect(lint.stdout + lint.stderr).toMatch(message);
      const rendered = await helm(['template', 'release', chart, ...valueArgs(values)]);
      expect(rendered.code).not.toBe(0);
      expect(rendered.stderr).toMatch(message);
    });
  }

  it('shop: is generated from the Shop schema (node charts/scripts/shop-values-schema.ts)', async () => {
    expect(await readFile(VALUES_SCHEMA_FILE, 'utf8')).toBe(await renderValuesSchema());
  });

  it("shop: values.yaml keeps the Shop's defaults", async () => {
    const schema = JSON.parse(await readFile(SHOP_SCHEMA_FILE, 'utf8')) as Schema;
    const values: unknown = parse(await readFile(path.join(SHOP_CHART, 'values.yaml'), 'utf8'));
    const defaults = scalarDefaults(schema.properties?.spec as Schema, []);
    expect(defaults.length).toBeGreaterThan(5);
    for (const [at, value] of defaults) expect([at.join('.'), valueAt(values, at)]).toEqual([at.join('.'), value]);
  });
});

describe('the CRD', () => {
  it('charts/shop-operator/crd/ holds the generated CRD unchanged (npm run crd:generate writes both)', async () => {
    expect(await readFile(CHART_CRD_FILE, 'utf8')).toBe(await readFile(CRD_FILE, 'utf8'));
  });
});

interface Schema {
  default?: unknown;
  properties?: Record<string, Schema>;
}

/** Every default of a scalar field, with its path, e.g. [['api', 'replicas'], 2]. */
function scalarDefaults(schema: Schema, at: string[]): Array<[string[], unknown]> {
  const own: Array<[string[], unknown]> = schema.default !== undefined && typeof schema.default !== 'object' ? [[at, schema.default]] : [];
  return [...own, ...Object.entries(schema.properties ?? {}).flatMap(([name, inner]) => scalarDefaults(inner, [...at, name]))];
}

function valueAt(values: unknown, at: readonly string[]): unknown {
  return at.reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], values);
}
