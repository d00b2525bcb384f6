import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { ConfigError, EnvReader, LOG_LEVELS, loadOrExit, type LogLevel } from '@shop/runtime';
import type { EventSchemaMode, NodeEnv } from './variables.ts';

export interface SearchEndpoint {
  readonly url: string;
  readonly apiKey: string | undefined;
}

export interface Config {
  readonly nodeEnv: NodeEnv;
  readonly isProduction: boolean;
  readonly host: string;
  readonly port: number;
  readonly consumerPort: number;
  readonly workerPort: number;
  readonly logLevel: LogLevel;
  /** undefined means the embedded PGlite database. */
  readonly databaseUrl: string | undefined;
  readonly databasePoolMax: number;
  /** Activities a worker runs at once; below databasePoolMax (the worker checks it). */
  readonly workerActivityConcurrency: number;
  /** Password derivations an api process admits at once (running and waiting); beyond, sign-ins are refused with 503. */
  readonly passwordQueueMax: number;
  /** undefined means the in-process cache. */
  readonly cacheUrl: string | undefined;
  /** undefined means in-process event delivery. */
  readonly brokers: readonly string[] | undefined;
  readonly secretKey: string;
  /** The signing key before the last rotation of SECRET_KEY: its tokens are still accepted until they expire. */
  readonly secretKeyPrevious: string | undefined;
  readonly secretsMasterKey: Buffer;
  readonly secretsMasterKeysRotatingFrom: readonly Buffer[];
  readonly workflowHost: string | undefined;
  readonly workflowNamespace: string;
  /** undefined: no card payments. */
  readonly paymentGatewayUrl: string | undefined;
  readonly sweepRowsPerSecond: number;
  /** 0: unpaced. */
  readonly secretsRewrapRowsPerSecond: number;
  readonly adminSearch: SearchEndpoint | undefined;
  readonly storefrontSearch: (SearchEndpoint & { readonly searchOnlyKey: string | undefined }) | undefined;
  readonly fileStorageDir: string;
  readonly fileStorageProvider: string | undefined;
  readonly publicApiBrowserOrigin: string | undefined;
  readonly eventSchemaMode: EventSchemaMode;
  readonly devExtensionsDir: string | undefined;
  readonly outboxRetentionHours: number;
  readonly processedEventsRetentionHours: number;
  readonly shutdownTimeoutMs: number;
  /** Addresses and CIDR ranges of trusted proxies; undefined: every X-Forwarded-For hop is believed. */
  readonly trustedProxies: readonly string[] | undefined;
  /** api processes (cluster workers) sharing the port: 1 runs the api in the main process. */
  readonly apiWorkers: number;
  /** The most a GraphQL request may cost (docs/graphql-limits.md). */
  readonly graphqlMaxCost: number;
  /** Whether GraphQL answers introspection queries (__schema, __type). */
  readonly graphqlIntrospection: boolean;
  /** GRAPHQL_PERSISTED_QUERIES with the operations of its file; undefined when off (docs/graphql-limits.md). */
  readonly graphqlPersistedQueries: PersistedQueries | undefined;
}

export interface PersistedQueries {
  /** `prepared`: registered operations may be sent by hash, any other query still runs; `allowlist`: only they run. */
  readonly mode: 'prepared' | 'allowlist';
  /** The query text of each registered operation by the SHA-256 of that text (lowercase hex). */
  readonly queries: ReadonlyMap<string, string>;
}

/** Used only outside production, where no secret was configured; refused in production. */
export const DEVELOPMENT_SECRET_KEY = 'development-only-secret-key-never-use-in-production';
export const DEVELOPMENT_MASTER_KEY = 'ZGV2LW9ubHktbWFzdGVyLWtleS1uZXZlci1pbi1wcmQ';

const MASTER_KEY_BYTES = 32;
const MIN_SECRET_KEY_LENGTH = 32;
const PRODUCTION_ONLY = 'in production (NODE_ENV=production)';

/** Parses and validates the whole environment; throws ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const read = new EnvReader(env);
  const nodeEnv = read.oneOf<NodeEnv>('NODE_ENV', ['development', 'test', 'production'], 'development');
  const isProduction = nodeEnv === 'production';
  const requiredHere = (name: string) => (isProduction ? read.required(name, PRODUCTION_ONLY) : read.optional(name));

  requiredHere('DATABASE_URL');
  requiredHere('CACHE_URL');
  requiredHere('BROKER_ADDRESS');

  const databasePoolMax = read.integer('DATABASE_POOL_MAX', 10, 1, 1000);
  const config: Config = {
    nodeEnv,
    isProduction,
    host: read.optional('HOST') ?? (isProduction ? '0.0.0.0' : '127.0.0.1'),
    port: read.integer('PORT', 3000, 0, 65_535),
    consumerPort: read.integer('CONSUMER_PORT', 9464, 0, 65_535),
    workerPort: read.integer('WORKER_PORT', 9465, 0, 65_535),
    logLevel: read.oneOf<LogLevel>('LOG_LEVEL', LOG_LEVELS, 'INFO', (v) => v.toUpperCase()),
    databaseUrl: read.url('DATABASE_URL', ['postgresql', 'postgres'], { secret: true }),
    databasePoolMax,
    workerActivityConcurrency: read.integer('WORKER_ACTIVITY_CONCURRENCY', defaultActivityConcurrency(databasePoolMax), 1, 1000),
    cacheUrl: read.url('CACHE_URL', ['redis', 'rediss'], { secret: true }),
    brokers: read.hostPorts('BROKER_ADDRESS'),
    secretKey: readSecretKey(read, isProduction),
    secretKeyPrevious: readPreviousSecretKey(read, isProduction),
    secretsMasterKey: readMasterKey(read, isProduction),
    secretsMasterKeysRotatingFrom: readRotatingKeys(read),
    workflowHost: read.hostPorts('WORKFLOW_HOST')?.[0],
    workflowNamespace: readNamespace(read),
    paymentGatewayUrl: read.url('PAYMENT_GATEWAY_URL', ['http', 'https']),
    // At least 10: a worker's pass of 500 rows then ends well within its activity's 2-minute timeout.
    sweepRowsPerSecond: read.integer('SWEEP_ROWS_PER_SECOND', 500, 10, 1_000_000),
    secretsRewrapRowsPerSecond: read.integer('SECRETS_REWRAP_ROWS_PER_SECOND', 5_000, 0, 1_000_000),
    adminSearch: readSearch(read, 'ADMIN_SEARCH'),
    storefrontSearch: readStorefrontSearch(read),
    fileStorageDir: read.optional('FILE_STORAGE_DIR') ?? 'uploads',
    fileStorageProvider: read.optional('FILE_STORAGE_PROVIDER'),
    publicApiBrowserOrigin: read.url('PUBLIC_API_BROWSER_ORIGIN', ['http', 'https']),
    eventSchemaMode: read.oneOf<EventSchemaMode>('EVENT_SCHEMA_MODE', ['strict', 'warn'], isProduction ? 'warn' : 'strict'),
    devExtensionsDir: readDevExtensions(read, isProduction),
    outboxRetentionHours: read.integer('OUTBOX_RETENTION_HOURS', 168, 1, 24 * 365),
    processedEventsRetentionHours: read.integer('PROCESSED_EVENTS_RETENTION_HOURS', 336, 1, 24 * 365),
    shutdownTimeoutMs: read.integer('SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    trustedProxies: readTrustedProxies(read),
    apiWorkers: readApiWorkers(read),
    passwordQueueMax: read.integer('PASSWORD_QUEUE_MAX', 16, 1, 10_000),
    graphqlMaxCost: read.integer('GRAPHQL_MAX_COST', 5_000, 10, 1_000_000),
    graphqlIntrospection: read.oneOf('GRAPHQL_INTROSPECTION', ['on', 'off'], isProduction ? 'off' : 'on') === 'on',
    graphqlPersistedQueries: readPersistedQueries(read),
  };

  if (read.problems.length > 0) throw new ConfigError(read.problems);
  return config;
}

/** The configuration, or the process stopped with one line per problem and exit code 78. */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  return loadOrExit(() => loadConfig(env));
}

/**
 * Two connections of the pool stay free of activities: one for a read outside an activity's
 * transaction (the gateway key, docs/money.md), one for the /ready probe.
 */
function defaultActivityConcurrency(databasePoolMax: number): number {
  return Math.max(1, databasePoolMax - 2);
}

/**
 * Several api processes only agree on rate limits and repeat clicks through Redis, and the embedded
 * database belongs to the one process that opened it.
 */
function readApiWorkers(read: EnvReader): number {
  const workers = read.integer('API_WORKERS', 1, 1, 64);
  if (workers > 1 && read.optional('CACHE_URL') === undefined) {
    read.problem('API_WORKERS', `${workers} workers need CACHE_URL: they share rate limits and repeat clicks through it`);
  }
  if (workers > 1 && read.optional('DATABASE_URL') === undefined) {
    read.problem('API_WORKERS', `${workers} workers need DATABASE_URL: the embedded database can be opened by one process only`);
  }
  return workers;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** GRAPHQL_PERSISTED_QUERIES and the file it needs, read and checked whole at start. */
function readPersistedQueries(read: EnvReader): PersistedQueries | undefined {
  const mode = read.oneOf('GRAPHQL_PERSISTED_QUERIES', ['off', 'prepared', 'allowlist'], 'off');
  const name = 'GRAPHQL_PERSISTED_QUERIES_FILE';
  const file = read.optional(name);
  if (mode === 'off') {
    if (file !== undefined)
      read.problem(name, 'is set but GRAPHQL_PERSISTED_QUERIES is off; set that to prepared or allowlist, or unset this');
    return undefined;
  }
  if (file === undefined) {
    read.problem(name, `is required with GRAPHQL_PERSISTED_QUERIES=${mode}: a JSON file of {"<sha256 of the query>": "<query>"}`);
    return undefined;
  }
  const queries = readQueryFile(file);
  if (typeof queries === 'string') {
    read.problem(name, `${file}: ${queries}`);
    return undefined;
  }
  return { mode, queries };
}

/** The file's operations, or what is wrong with it. */
function readQueryFile(file: string): Map<string, string> | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    return error instanceof SyntaxError
      ? `is not JSON (${error.message})`
      : `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return 'must hold one JSON object of {"<sha256 of the query>": "<query>"}';
  const queries = new Map<string, string>();
  for (const [hash, query] of Object.entries(parsed)) {
    if (!SHA256_HEX.test(hash)) return `key "${hash.slice(0, 80)}" is not a SHA-256 in lowercase hex`;
    if (typeof query !== 'string' || query.trim() === '') return `the query of ${hash} must be a non-empty string`;
    if (createHash('sha256').update(query, 'utf8').digest('hex') !== hash) return `${hash} is not the SHA-256 of its query`;
    queries.set(hash, query);
  }
  if (queries.size === 0) return 'registers no operation';
  return queries;
}

/** Temporal's rule for namespace names. */
function readNamespace(read: EnvReader): string {
  const namespace = read.optional('WORKFLOW_NAMESPACE') ?? 'default';
  if (/^[A-Za-z0-9][A-Za-z0-9._-]{0,253}$/.test(namespace)) return namespace;
  read.problem('WORKFLOW_NAMESPACE', 'must be 1 to 254 letters, digits, ".", "_" or "-", starting with a letter or digit');
  return 'default';
}

function readSecretKey(read: EnvReader, isProduction: boolean): string {
  if (!isProduction) return read.optional('SECRET_KEY') ?? DEVELOPMENT_SECRET_KEY;
  const value = read.required('SECRET_KEY', PRODUCTION_ONLY);
  if (value !== undefined) checkProductionSigningKey(read, 'SECRET_KEY', value);
  return value ?? '';
}

function readPreviousSecretKey(read: EnvReader, isProduction: boolean): string | undefined {
  const value = read.optional('SECRET_KEY_PREVIOUS');
  if (value !== undefined && isProduction) checkProductionSigningKey(read, 'SECRET_KEY_PREVIOUS', value);
  return value;
}

function checkProductionSigningKey(read: EnvReader, name: string, value: string): void {
  if (value === DEVELOPMENT_SECRET_KEY) read.problem(name, 'is the embedded development key; generate a new one');
  else if (value.length < MIN_SECRET_KEY_LENGTH) {
    read.problem(name, `must be at least ${MIN_SECRET_KEY_LENGTH} characters (a long URL-safe random string)`);
  }
}

function readMasterKey(read: EnvReader, isProduction: boolean): Buffer {
  const name = 'SECRETS_MASTER_KEY';
  const value = isProduction ? read.required(name, PRODUCTION_ONLY) : read.optional(name);
  if (isProduction && value === DEVELOPMENT_MASTER_KEY) {
    read.problem(name, 'is the embedded development key; generate a new one');
  }
  return decodeMasterKey(read, name, value ?? DEVELOPMENT_MASTER_KEY) ?? Buffer.alloc(0);
}

function readRotatingKeys(read: EnvReader): Buffer[] {
  const name = 'SECRETS_MASTER_KEY_ROTATING_FROM';
  const list =
    read
      .optional(name)
      ?.split(',')
      .map((key) => key.trim())
      .filter((key) => key !== '') ?? [];
  return list.flatMap((key) => decodeMasterKey(read, name, key) ?? []);
}

function decodeMasterKey(read: EnvReader, name: string, value: string): Buffer | undefined {
  const key = /^[A-Za-z0-9+/_-]+={0,2}$/.test(value) ? Buffer.from(value, 'base64') : undefined;
  if (key?.length === MASTER_KEY_BYTES) return key;
  read.problem(name, `must be ${MASTER_KEY_BYTES} bytes encoded as base64 or base64url (e.g. openssl rand -base64 32)`);
  return undefined;
}

function readSearch(read: EnvReader, prefix: string): SearchEndpoint | undefined {
  const url = read.url(`${prefix}_URL`, ['http', 'https']);
  return url === undefined ? undefined : { url, apiKey: read.optional(`${prefix}_API_KEY`) };
}

function readStorefrontSearch(read: EnvReader): Config['storefrontSearch'] {
  const endpoint = readSearch(read, 'STOREFRONT_SEARCH');
  return endpoint && { ...endpoint, searchOnlyKey: read.optional('STOREFRONT_SEARCH_ONLY_KEY') };
}

function readTrustedProxies(read: EnvReader): string[] | undefined {
  const name = 'TRUSTED_PROXIES';
  const entries = read
    .optional(name)
    ?.split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries === undefined || entries.length === 0) return undefined;
  const bad = entries.find((entry) => !isAddressOrRange(entry));
  if (bad === undefined) return entries;
  read.problem(name, `must be IP addresses or CIDR ranges, comma-separated (bad entry "${bad}")`);
  return undefined;
}

function isAddressOrRange(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

function readDevExtensions(read: EnvReader, isProduction: boolean): string | undefined {
  const dir = read.optional('SHOP_DEV_EXTENSIONS');
  if (dir !== undefined && isProduction) read.problem('SHOP_DEV_EXTENSIONS', 'is development-only; unset it in production');
  return dir;
}
