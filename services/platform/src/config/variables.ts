/**
 * Every environment variable the core's processes read, with its rule and its documentation; the
 * extensions declare their own (ExtensionConfig). The README's configuration tables are checked against both.
 */
export type NodeEnv = 'development' | 'test' | 'production';
export type EventSchemaMode = 'strict' | 'warn';

export interface VariableDoc {
  readonly name: string;
  readonly description: string;
  readonly defaultValue?: string;
  readonly requiredInProduction?: boolean;
  readonly secret?: boolean;
}

export const VARIABLES: readonly VariableDoc[] = [
  { name: 'NODE_ENV', description: '`development`, `test` or `production`', defaultValue: 'development' },
  { name: 'HOST', description: 'Address the HTTP server binds', defaultValue: '127.0.0.1 (0.0.0.0 in production)' },
  { name: 'PORT', description: 'HTTP port of the api', defaultValue: '3000' },
  {
    name: 'API_WORKERS',
    description: 'api processes sharing PORT, for pods with more than one CPU; above 1 needs DATABASE_URL and CACHE_URL',
    defaultValue: '1',
  },
  {
    name: 'PASSWORD_QUEUE_MAX',
    description:
      'Sign-ins (and sign-ups) an api process admits at once to its one-at-a-time password hashing; beyond, they are refused with 503 and `Retry-After` (docs/rate-limiting.md)',
    defaultValue: '16',
  },
  { name: 'CONSUMER_PORT', description: "Port of the consumer's /health, /ready and /metrics server", defaultValue: '9464' },
  { name: 'WORKER_PORT', description: "Port of the worker's /health, /ready and /metrics server", defaultValue: '9465' },
  { name: 'LOG_LEVEL', description: '`DEBUG`, `INFO`, `WARNING` or `ERROR`', defaultValue: 'INFO' },
  {
    name: 'DATABASE_URL',
    description: 'PostgreSQL connection string (`postgresql://`); unset: embedded PGlite under `.data/pglite`',
    requiredInProduction: true,
    secret: true,
  },
  { name: 'DATABASE_POOL_MAX', description: 'Connections in the database pool of each process', defaultValue: '10' },
  {
    name: 'WORKER_ACTIVITY_CONCURRENCY',
    description:
      "Activities a worker runs at once; must be below `DATABASE_POOL_MAX`, so an activity's read outside its transaction always finds a connection (docs/money.md)",
    defaultValue: '`DATABASE_POOL_MAX` − 2, at least 1',
  },
  {
    name: 'CACHE_URL',
    description: 'Redis-compatible cache (`redis://` or `rediss://`); unset: in-process cache',
    requiredInProduction: true,
    secret: true,
  },
  {
    name: 'BROKER_ADDRESS',
    description: 'Kafka bootstrap servers, comma-separated `host:port`; unset: events are delivered in-process',
    requiredInProduction: true,
  },
  {
    name: 'SECRET_KEY',
    description: 'JWT signing secret (at least 32 characters); tokens name it by a key id (`kid`)',
    requiredInProduction: true,
    secret: true,
  },
  {
    name: 'SECRET_KEY_PREVIOUS',
    description: 'The `SECRET_KEY` before its last rotation: tokens it signed are still accepted until they expire (see docs/secrets.md)',
    secret: true,
  },
  {
    name: 'SECRETS_MASTER_KEY',
    description:
      'Key that encrypts stored secrets (AES-256-GCM): 32 bytes, base64 or base64url. A process refuses to start when stored secrets are under a key it does not have (see docs/secrets.md)',
    requiredInProduction: true,
    secret: true,
  },
  {
    name: 'SECRETS_MASTER_KEY_ROTATING_FROM',
    description: 'Older master keys, comma-separated, still accepted for decryption until `npm run secrets:rewrap` has moved their rows',
    secret: true,
  },
  {
    name: 'WORKFLOW_HOST',
    description:
      'Temporal frontend `host:port`; the worker needs it. Unset: the api runs the periodic sweeps itself and the timers of order and approval workflows are off (one warning)',
  },
  { name: 'WORKFLOW_NAMESPACE', description: 'Temporal namespace of the workflows and schedules', defaultValue: 'default' },
  {
    name: 'PAYMENT_GATEWAY_URL',
    description:
      'Base URL of the payment gateway (docs/money.md); its API key is the stored secret `payments.gateway_api_key`. Unset: checkout refuses cards, and orders are marked paid by staff',
  },
  {
    name: 'SWEEP_ROWS_PER_SECOND',
    description:
      'Most stale holds or expired carts a periodic sweep handles per second in each worker (or api without `WORKFLOW_HOST`), in transactions of 100, so a backlog does not crowd out the storefront; at least 10',
    defaultValue: '500',
  },
  {
    name: 'SECRETS_REWRAP_ROWS_PER_SECOND',
    description:
      "Most stored secrets `npm run secrets:rewrap` (and the operator's rewrap Job) re-encrypts a second, so a rewrap beside the storefront does not take a whole core (docs/secrets.md); 0: unpaced",
    defaultValue: '5000',
  },
  {
    name: 'ADMIN_SEARCH_URL',
    description: 'Meilisearch URL for the admin search index (orders, customers, products); empty keeps it in PostgreSQL full text',
  },
  {
    name: 'ADMIN_SEARCH_API_KEY',
    description: 'API key for ADMIN_SEARCH_URL: creates, configures, writes and searches its index',
    secret: true,
  },
  {
    name: 'STOREFRONT_SEARCH_URL',
    description: 'Meilisearch URL for the storefront search index (active products per channel); empty keeps it in PostgreSQL full text',
  },
  {
    name: 'STOREFRONT_SEARCH_API_KEY',
    description:
      'API key for STOREFRONT_SEARCH_URL: creates, configures, writes and searches its index, and looks up the uid of STOREFRONT_SEARCH_ONLY_KEY',
    secret: true,
  },
  {
    name: 'STOREFRONT_SEARCH_ONLY_KEY',
    description:
      'Meilisearch key allowed only to search, which signs the channel-scoped tenant tokens BFFs get from storefrontSearchKey; empty: no scoped keys',
    secret: true,
  },
  {
    name: 'FILE_STORAGE_DIR',
    description: 'Directory of the local file storage, served by the api under `/uploads` (docs/storage.md)',
    defaultValue: 'uploads',
  },
  {
    name: 'FILE_STORAGE_PROVIDER',
    description:
      'The file storage provider to use by name (`local`, `s3`); empty: the last registered that is configured; an unknown name: a warning naming it, and the last registered that is configured. Production never uses `local`: pinned it is refused, otherwise uploads are off until a storage extension is configured (docs/storage.md)',
  },
  {
    name: 'PUBLIC_API_BROWSER_ORIGIN',
    description: 'Browser-reachable origin of the api: local file storage URLs (`/uploads/...`) start with it; unset, they are relative',
  },
  {
    name: 'EVENT_SCHEMA_MODE',
    description: '`strict` rejects an invalid event payload, `warn` logs and publishes it',
    defaultValue: 'strict (warn in production)',
  },
  {
    name: 'SHOP_DEV_EXTENSIONS',
    description:
      'Development only: a folder of extension packages, discovered after the installed ones and extensions/ (a dev-linked copy replaces one of the same id); refused in production',
  },
  {
    name: 'OUTBOX_RETENTION_HOURS',
    description: 'How long published and dispatched events stay in the outbox before pruning',
    defaultValue: '168',
  },
  {
    name: 'PROCESSED_EVENTS_RETENTION_HOURS',
    description: "How long the consumer remembers handled event ids to drop redeliveries (keep it above the topics' retention)",
    defaultValue: '336',
  },
  {
    name: 'SHUTDOWN_TIMEOUT_MS',
    description: 'How long a stopping process waits for in-flight work',
    defaultValue: '10000',
  },
  {
    name: 'TRUSTED_PROXIES',
    description:
      'Proxies (addresses or CIDR ranges, comma-separated) whose X-Forwarded-For /track believes for the client IP; unset: every forwarder is believed. Set it in production: it is the safer setting',
  },
  {
    name: 'GRAPHQL_MAX_COST',
    description:
      'The most one GraphQL request may cost: objects it asks for, lists counted by their `first` (docs/graphql-limits.md); a costlier one is refused with 400 before it runs',
    defaultValue: '5000',
  },
  {
    name: 'GRAPHQL_INTROSPECTION',
    description: '`on` or `off`: whether GraphQL answers introspection (`__schema`, `__type`); BFFs and tools need it to read the schema',
    defaultValue: 'on, off in production',
  },
  {
    name: 'GRAPHQL_PERSISTED_QUERIES',
    description:
      '`off`, `prepared` (the operations of `GRAPHQL_PERSISTED_QUERIES_FILE` may be sent by their SHA-256) or `allowlist` (only they run, except for staff: docs/graphql-limits.md)',
    defaultValue: 'off',
  },
  {
    name: 'GRAPHQL_PERSISTED_QUERIES_FILE',
    description: 'A JSON file of `{"<sha256 of the query>": "<query>"}`, read at start; required unless `GRAPHQL_PERSISTED_QUERIES` is off',
  },
];
