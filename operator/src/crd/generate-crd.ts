/**
 * The Shop resource is defined once, in schemas/crd/shop.v1alpha1.json. This writes the CRD
 * (operator/crd/shops.shop.dev.yaml) and the Shop types (cdk8s/src/shop.generated.ts, shared by @shop/cdk8s and the operator) from it:
 * `npm run crd:generate`. A test fails when either generated file is stale.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import { stringify } from 'yaml';

const REPO_ROOT = path.resolve(import.meta.dirname, '../../..');
export const SHOP_SCHEMA_FILE = path.join(REPO_ROOT, 'schemas/crd/shop.v1alpha1.json');
export const CRD_FILE = path.join(REPO_ROOT, 'operator/crd/shops.shop.dev.yaml');
/** The shop-operator chart's copy, which its templates/crd.yaml installs and upgrades. */
export const CHART_CRD_FILE = path.join(REPO_ROOT, 'charts/shop-operator/crd/shops.shop.dev.yaml');
export const TYPES_FILE = path.join(REPO_ROOT, 'cdk8s/src/shop.generated.ts');

export const SHOP_GROUP = 'shop.dev';
export const SHOP_VERSION = 'v1alpha1';

const PRINTER_COLUMNS = [
  { name: 'Phase', type: 'string', jsonPath: '.status.phase', description: 'Summary of where the Shop is' },
  { name: 'Version', type: 'string', jsonPath: '.spec.image.tag', description: 'The image tag asked for' },
  { name: 'Migrated', type: 'string', jsonPath: '.status.migratedVersion', description: 'The version whose migrations are applied' },
  { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status', description: 'Whether the Shop serves' },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
];

type Schema = Record<string, unknown>;

async function readSchema(): Promise<Schema> {
  return JSON.parse(await readFile(SHOP_SCHEMA_FILE, 'utf8')) as Schema;
}

/** The API server wants OpenAPI v3 without JSON Schema's `$comment`. */
function openApi(schema: Schema): Schema {
  const { $comment: _comment, ...rest } = schema;
  return rest;
}

export async function renderCrd(): Promise<string> {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `shops.${SHOP_GROUP}` },
    spec: {
      group: SHOP_GROUP,
      scope: 'Namespaced',
      names: { kind: 'Shop', listKind: 'ShopList', plural: 'shops', singular: 'shop', shortNames: ['shp'], categories: ['all'] },
      versions: [
        {
          name: SHOP_VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: PRINTER_COLUMNS,
          schema: { openAPIV3Schema: openApi(await readSchema()) },
        },
      ],
    },
  };
  return `# Generated from schemas/crd/shop.v1alpha1.json by operator/src/crd/generate-crd.ts. Do not edit.\n${stringify(crd, { lineWidth: 0 })}`;
}

/** Drops the Kubernetes-only keywords json-schema-to-typescript does not know. */
function forTypes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(forTypes);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value).filter(([key]) => !key.startsWith('x-kubernetes-') && key !== 'pattern');
  const plain: Record<string, unknown> = Object.fromEntries(entries.map(([key, inner]) => [key, forTypes(inner)]));
  // A Kubernetes type the schema keeps opaque (affinity, tolerations): any fields, as the API server takes them.
  if ((value as Record<string, unknown>)['x-kubernetes-preserve-unknown-fields'] === true) plain.additionalProperties = true;
  return 'anyOf' in plain ? { description: plain.description, type: ['integer', 'string'] } : plain;
}

/** The part of Kubernetes' ObjectMeta the operator reads and writes. */
const OBJECT_META =
  '{ name?: string; namespace?: string; uid?: string; generation?: number; resourceVersion?: string; ' +
  'labels?: Record<string, string>; annotations?: Record<string, string>; [field: string]: unknown }';

export async function renderTypes(): Promise<string> {
  const schema = await readSchema();
  const properties = schema.properties as Record<string, Schema>;
  const named = {
    ...schema,
    title: 'Shop',
    properties: {
      ...properties,
      metadata: { tsType: OBJECT_META },
      spec: { ...properties.spec, title: 'ShopSpec' },
      status: { ...properties.status, title: 'ShopStatus' },
    },
  };
  const source = await compile(forTypes(named) as JSONSchema, 'Shop', {
    bannerComment: '// Generated from schemas/crd/shop.v1alpha1.json by generate-crd.ts. Do not edit.',
    additionalProperties: false,
  });
  return source;
}

if (import.meta.main) {
  const crd = await renderCrd();
  const written = [CRD_FILE, CHART_CRD_FILE, TYPES_FILE];
  await writeFile(CRD_FILE, crd);
  await writeFile(CHART_CRD_FILE, crd);
  await writeFile(TYPES_FILE, await renderTypes());
  process.stdout.write(`wrote ${written.map((file) => path.relative(process.cwd(), file)).join(', ')}\n`);
}
