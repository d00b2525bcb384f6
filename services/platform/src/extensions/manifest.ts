import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';

/** A module of the extension, relative to its package folder. */
type ModulePath = string;

/** The `shop` field of an extension's package.json (extensions/README.md describes each field). */
export interface ExtensionManifest {
  readonly id: string;
  /** Its own migration chain: a folder of `<name>/migration.sql` and the newest migration's name. */
  readonly migrations?: { readonly dir: string; readonly head: string };
  readonly permissions?: readonly { readonly name: string; readonly description: string }[];
  /** Exports `listeners`: outbox event listeners run by the api's outbox. */
  readonly listeners?: ModulePath;
  /** Exports `consumerHandlers`: handlers of broker topics for the consumer. */
  readonly consumerHandlers?: ModulePath;
  /** SDL (`extend type Query { ... }`) and a module exporting `resolvers`, served as a graph area. */
  readonly graphql?: { readonly schema: string; readonly resolvers: ModulePath };
  /** Settings the extension declares: only validated, nothing reads or stores them (`secret` included). */
  readonly settings?: readonly { readonly key: string; readonly description: string; readonly secret?: boolean }[];
  /** File storage providers, each a module exporting `register`. */
  readonly storageProviders?: readonly { readonly name: string; readonly module: ModulePath }[];
  /** A module of the extension's workflows: only validated, never loaded or run. */
  readonly workflows?: ModulePath;
}

const text = { type: 'string', minLength: 1 } as const;
const modulePath = { type: 'string', pattern: '^\\./' } as const;

const MANIFEST_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: {
    id: { type: 'string', pattern: '^[a-z][a-z0-9-]{0,39}$' },
    migrations: {
      type: 'object',
      additionalProperties: false,
      required: ['dir', 'head'],
      properties: { dir: text, head: text },
    },
    permissions: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'description'],
        properties: { name: { type: 'string', pattern: '^[a-z][a-z0-9_]*\\.[a-z][a-z0-9_.]*$', maxLength: 100 }, description: { ...text, maxLength: 500 } },
      },
    },
    listeners: modulePath,
    consumerHandlers: modulePath,
    graphql: {
      type: 'object',
      additionalProperties: false,
      required: ['schema', 'resolvers'],
      properties: { schema: text, resolvers: modulePath },
    },
    settings: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['key', 'description'],
        properties: { key: { type: 'string', pattern: '^[a-z][a-z0-9_]*$' }, description: text, secret: { type: 'boolean' } },
      },
    },
    storageProviders: {
      type: 'array',
      items: { type: 'object', additionalProperties: false, required: ['name', 'module'], properties: { name: text, module: modulePath } },
    },
    workflows: modulePath,
  },
} as const;

const validate = new Ajv2020({ allErrors: false, strict: true }).compile<ExtensionManifest>(MANIFEST_SCHEMA);

/** `shop.permissions/0/name` → `shop.permissions[0].name`. */
function fieldOf(error: ErrorObject): string {
  const parts = error.instancePath.split('/').slice(1);
  const missing = error.keyword === 'required' ? [String(error.params['missingProperty'])] : [];
  const extra = error.keyword === 'additionalProperties' ? [String(error.params['additionalProperty'])] : [];
  return ['shop', ...parts, ...missing, ...extra].map((part, index) => (/^\d+$/.test(part) ? `[${part}]` : index === 0 ? part : `.${part}`)).join('');
}

function problemOf(error: ErrorObject): string {
  if (error.keyword === 'required') return 'is required';
  if (error.keyword === 'additionalProperties') return 'is not a manifest field';
  if (error.keyword === 'pattern' && String(error.params['pattern']).startsWith('^\\./')) return 'must be a module path starting with ./';
  return error.message ?? 'is invalid';
}

/** The manifest, or the first problem as "<field> <problem>" (e.g. `shop.permissions[0].name is required`). */
export function checkManifest(value: unknown): { manifest: ExtensionManifest } | { problem: string } {
  if (validate(value)) return { manifest: value };
  const [error] = validate.errors ?? [];
  return { problem: error === undefined ? 'shop is invalid' : `${fieldOf(error)} ${problemOf(error)}` };
}
