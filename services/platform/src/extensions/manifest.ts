import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';

/** A module of the extension, relative to its package folder. */
type ModulePath = string;

/** What a setting's value is: `integer` and `number` are JSON numbers, `integer` a whole one. */
export type ExtensionSettingType = 'string' | 'integer' | 'number' | 'boolean';
export type ExtensionSettingValue = string | number | boolean;

/** A setting an extension declares; a `secret` one is a string kept in the secrets store, without a default. */
export interface ExtensionSettingDeclaration {
  readonly key: string;
  readonly type: ExtensionSettingType;
  readonly description: string;
  readonly default?: ExtensionSettingValue;
  readonly secret?: boolean;
  /** The least value an `integer` or `number` setting may take, included. */
  readonly minimum?: number;
  /** The greatest, included. */
  readonly maximum?: number;
}

/** A Temporal Schedule of one of the extension's workflows, created by the worker like the core's. */
export interface ExtensionSchedule {
  /** Starts with the extension's id and a dot. */
  readonly id: string;
  readonly workflowType: string;
  readonly everyMinutes: number;
  readonly description: string;
}

/** Temporal workflows the worker bundles with the core's, their activities and their schedules. */
export interface ExtensionWorkflows {
  /** Exports the workflow functions; each export's name is its workflow type. */
  readonly module: ModulePath;
  /** Exports `activities`: an object of activity functions, or a function of the extension's context returning one. */
  readonly activities?: ModulePath;
  readonly schedules?: readonly ExtensionSchedule[];
}

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
  /** Settings staff set over GraphQL and the extension's code reads through its context. */
  readonly settings?: readonly ExtensionSettingDeclaration[];
  /** Exports `config`: the environment variables the extension owns and how it reads them (ExtensionConfig). */
  readonly config?: ModulePath;
  /** File storage providers, each a module exporting `register`. */
  readonly storageProviders?: readonly { readonly name: string; readonly module: ModulePath }[];
  readonly workflows?: ExtensionWorkflows;
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
        properties: {
          name: { type: 'string', pattern: '^[a-z][a-z0-9_]*\\.[a-z][a-z0-9_.]*$', maxLength: 100 },
          description: { ...text, maxLength: 500 },
        },
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
        required: ['key', 'type', 'description'],
        properties: {
          key: { type: 'string', pattern: '^[a-z][a-z0-9_]*$', maxLength: 100 },
          type: { enum: ['string', 'integer', 'number', 'boolean'] },
          description: text,
          default: { type: ['string', 'number', 'boolean'] },
          secret: { type: 'boolean' },
          minimum: { type: 'number' },
          maximum: { type: 'number' },
        },
      },
    },
    config: modulePath,
    storageProviders: {
      type: 'array',
      items: { type: 'object', additionalProperties: false, required: ['name', 'module'], properties: { name: text, module: modulePath } },
    },
    workflows: {
      type: 'object',
      additionalProperties: false,
      required: ['module'],
      properties: {
        module: modulePath,
        activities: modulePath,
        schedules: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['id', 'workflowType', 'everyMinutes', 'description'],
            properties: {
              id: { ...text, maxLength: 200 },
              workflowType: text,
              everyMinutes: { type: 'integer', minimum: 1 },
              description: text,
            },
          },
        },
      },
    },
  },
} as const;

const validate = new Ajv2020({ allErrors: false, strict: true, allowUnionTypes: true }).compile<ExtensionManifest>(MANIFEST_SCHEMA);

/** `shop.permissions/0/name` → `shop.permissions[0].name`. */
function fieldOf(error: ErrorObject): string {
  const parts = error.instancePath.split('/').slice(1);
  const missing = error.keyword === 'required' ? [String(error.params['missingProperty'])] : [];
  const extra = error.keyword === 'additionalProperties' ? [String(error.params['additionalProperty'])] : [];
  return ['shop', ...parts, ...missing, ...extra]
    .map((part, index) => (/^\d+$/.test(part) ? `[${part}]` : index === 0 ? part : `.${part}`))
    .join('');
}

function problemOf(error: ErrorObject): string {
  if (error.keyword === 'required') return 'is required';
  if (error.keyword === 'additionalProperties') return 'is not a manifest field';
  if (error.keyword === 'pattern' && String(error.params['pattern']).startsWith('^\\./')) return 'must be a module path starting with ./';
  if (error.keyword === 'enum') return `must be one of ${(error.params['allowedValues'] as unknown[]).join(', ')}`;
  return error.message ?? 'is invalid';
}

const SETTING_TYPE_CHECKS: Record<ExtensionSettingType, (value: unknown) => boolean> = {
  string: (value) => typeof value === 'string',
  integer: (value) => Number.isSafeInteger(value),
  number: (value) => typeof value === 'number' && Number.isFinite(value),
  boolean: (value) => typeof value === 'boolean',
};

type SettingRule = Pick<ExtensionSettingDeclaration, 'type' | 'minimum' | 'maximum'>;

/** Whether the value is one of the type's, within the declared range: what a setting's default and every stored value must be. */
export function settingFits(setting: SettingRule, value: unknown): value is ExtensionSettingValue {
  if (!SETTING_TYPE_CHECKS[setting.type](value)) return false;
  if (typeof value !== 'number') return true;
  return (setting.minimum === undefined || value >= setting.minimum) && (setting.maximum === undefined || value <= setting.maximum);
}

const SETTING_TYPE_WORDS: Record<ExtensionSettingType, string> = {
  string: 'a string',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
};

/** "a whole number from 1 to 2000": for the messages refusing a value. */
export function settingTypeWords(setting: SettingRule): string {
  const words = SETTING_TYPE_WORDS[setting.type];
  const { minimum, maximum } = setting;
  if (minimum !== undefined && maximum !== undefined) return `${words} from ${minimum} to ${maximum}`;
  if (minimum !== undefined) return `${words} of at least ${minimum}`;
  if (maximum !== undefined) return `${words} of at most ${maximum}`;
  return words;
}

const NUMERIC_SETTING_TYPES: readonly ExtensionSettingType[] = ['integer', 'number'];

/** What the JSON schema cannot say: a default of the setting's type and range, a range only on numbers, secrets as strings without one, keys and schedule ids once, schedule ids under the extension's id. */
function declarationProblem(manifest: ExtensionManifest): string | undefined {
  const settings = manifest.settings ?? [];
  for (const [index, setting] of settings.entries()) {
    const at = `shop.settings[${index}]`;
    if (settings.findIndex((other) => other.key === setting.key) !== index) return `${at}.key "${setting.key}" is declared twice`;
    if (setting.secret === true && setting.type !== 'string') return `${at}.type must be "string" for a secret`;
    if (setting.secret === true && setting.default !== undefined) return `${at}.default is not allowed for a secret`;
    const ranged = setting.minimum !== undefined || setting.maximum !== undefined;
    if (ranged && !NUMERIC_SETTING_TYPES.includes(setting.type))
      return `${at}.minimum and maximum are only for integer and number settings`;
    if (setting.minimum !== undefined && setting.maximum !== undefined && setting.minimum > setting.maximum)
      return `${at}.minimum must not be above its maximum`;
    if (setting.default !== undefined && !settingFits(setting, setting.default))
      return `${at}.default must be ${settingTypeWords(setting)}`;
  }
  const schedules = manifest.workflows?.schedules ?? [];
  for (const [index, schedule] of schedules.entries()) {
    const at = `shop.workflows.schedules[${index}].id`;
    if (!schedule.id.startsWith(`${manifest.id}.`)) return `${at} must start with "${manifest.id}."`;
    if (schedules.findIndex((other) => other.id === schedule.id) !== index) return `${at} "${schedule.id}" is declared twice`;
  }
  return undefined;
}

/** The manifest, or the first problem as "<field> <problem>" (e.g. `shop.permissions[0].name is required`). */
export function checkManifest(value: unknown): { manifest: ExtensionManifest } | { problem: string } {
  if (validate(value)) {
    const problem = declarationProblem(value);
    return problem === undefined ? { manifest: value } : { problem };
  }
  const [error] = validate.errors ?? [];
  return { problem: error === undefined ? 'shop is invalid' : `${fieldOf(error)} ${problemOf(error)}` };
}
