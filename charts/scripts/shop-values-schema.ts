/**
 * The shop chart's values are a Shop's spec plus its name, so its values.schema.json is derived from
 * the Shop schema (schemas/crd/shop.v1alpha1.json) instead of kept by hand:
 * `node charts/scripts/shop-values-schema.ts` writes it, and a test fails when it is stale.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
export const SHOP_SCHEMA_FILE = path.join(REPO_ROOT, 'schemas/crd/shop.v1alpha1.json');
export const VALUES_SCHEMA_FILE = path.join(REPO_ROOT, 'charts/shop/values.schema.json');

type Schema = { [keyword: string]: unknown };

/**
 * JSON Schema as `helm lint` and `helm install` apply it: without the Kubernetes-only keywords, and
 * unknown fields rejected at every level, as a strict server-side field validation would.
 */
function strict(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strict);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value).filter(([key]) => !key.startsWith('x-kubernetes-'));
  const schema: Schema = Object.fromEntries(entries.map(([key, inner]) => [key, key === 'properties' ? strictEach(inner) : strict(inner)]));
  if (schema.type === 'object' && schema.properties !== undefined && schema.additionalProperties === undefined)
    schema.additionalProperties = false;
  return schema;
}

function strictEach(properties: unknown): Schema {
  return Object.fromEntries(Object.entries(properties as Schema).map(([name, schema]) => [name, strict(schema)]));
}

export async function renderValuesSchema(): Promise<string> {
  const shop = JSON.parse(await readFile(SHOP_SCHEMA_FILE, 'utf8')) as { properties: { spec: Schema } };
  const spec = strict(shop.properties.spec) as Schema & { properties: Record<string, Schema & { properties: Record<string, Schema> }> };
  const { image } = spec.properties;
  if (image === undefined || image.properties.tag === undefined) throw new Error('the Shop schema has no spec.image.tag');
  // The one departure from the Shop: an empty tag stands for the chart's appVersion.
  const shopTag = image.properties.tag;
  const tag: Schema = {
    ...shopTag,
    description: `${String(shopTag.description)} The chart's appVersion when empty.`,
    minLength: 0,
    pattern: `^(${String(shopTag.pattern).replace(/^\^|\$$/g, '')})?$`,
  };
  const values = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $comment: 'Generated from schemas/crd/shop.v1alpha1.json by charts/scripts/shop-values-schema.ts. Do not edit.',
    title: 'Values of the shop chart: the name and spec of one Shop',
    type: 'object',
    additionalProperties: false,
    required: spec.required,
    properties: {
      name: {
        description: "The Shop's name; the release name when empty. A DNS label of at most 54 characters.",
        type: 'string',
        maxLength: 54,
        pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?)?$',
      },
      ...spec.properties,
      image: { ...image, required: ['repository'], properties: { ...image.properties, tag } },
    },
  };
  return `${JSON.stringify(values, null, 2)}\n`;
}

if (import.meta.main) await writeFile(VALUES_SCHEMA_FILE, await renderValuesSchema());
