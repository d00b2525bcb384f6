export {
  loadConfig,
  loadConfigOrExit,
  DEVELOPMENT_SECRET_KEY,
  DEVELOPMENT_MASTER_KEY,
  type Config,
  type PersistedQueries,
} from './config/config.ts';
export {
  ConfigError,
  createLogger,
  exitWithConfigProblems,
  EXIT_CONFIG,
  EXIT_USAGE,
  runCommand,
  type Logger,
  type LogLevel,
} from '@shop/runtime';
export { VARIABLES, type NodeEnv, type EventSchemaMode, type VariableDoc } from './config/variables.ts';
export { createMetricsRegistry } from './metrics/registry.ts';
export { workflowMetrics, type WorkflowMetrics } from './metrics/workflow-metrics.ts';
export { openDatabase, PrismaClient, type Database } from './db/database.ts';
export { startEmbeddedPostgres } from './db/embedded-postgres.ts';
export type { Cache, BucketCharge, Claims, ChargeAndClaimResult } from './cache/cache.ts';
export type { BucketLimit, TakeResult } from './cache/token-bucket.ts';
export { MemoryCache } from './cache/memory/memory-cache.ts';
export { RedisCache, type RedisCacheOptions } from './cache/redis/redis-cache.ts';
export type { Broker } from './broker/broker.ts';
export { KafkaBroker } from './broker/kafka-broker.ts';
export { runProbe, type Probe, type ProbeResult, type DependencyMode } from './health/probe.ts';
export { withTimeout } from './time/with-timeout.ts';
export { gracefulStop, type GracefulStop, type GracefulStopOptions } from './process/graceful-stop.ts';
export { domainDeps } from './process/domain-deps.ts';
export { openPlatform, type Platform } from './platform.ts';
export { applyMigrations, createMigration, MigrationError } from './db/migrations/index.ts';
export { startOutbox, type OutboxOptions, type RunningOutbox } from './outbox/outbox.ts';
export { PollingLoop } from './outbox/polling-loop.ts';
export type { EngineRun, WorkflowEngine, WorkflowStart, WorkflowType } from './workflows/engine.ts';
export {
  InProcessWorkflowEngine,
  type InProcessEngineOptions,
  type InProcessSweep,
  type InProcessWorkflow,
} from './workflows/in-process-engine.ts';
export { deleteInBatches } from './db/delete-in-batches.ts';
export { pruningLoop, type PruningOptions } from './db/pruning-loop.ts';
export { outboxMetrics } from './outbox/outbox-metrics.ts';
export { createEmitter, type Emit, type EmitPayload, type Emitter, type RunTransaction, type TransactionOptions } from './outbox/emit.ts';
export type { EventListener } from './outbox/listeners.ts';
export { Prisma } from './generated/prisma/client.ts';
export type {
  Cart,
  CartLine,
  Customer,
  Order,
  OrderLine,
  PaymentTender,
  Product,
  Refund,
  StoreCreditAccount,
  StoreCreditEntry,
  StoreCreditOverdraftDraft,
} from './generated/prisma/client.ts';
export {
  BusinessApproval,
  CartStatus,
  OrderStatus,
  OverdraftDraftStatus,
  OverdraftReason,
  RefundDestination,
  RefundRequestStatus,
  RefundStatus,
  ReservationState,
  TenderEventKind,
  TenderKind,
  TenderStatus,
} from './generated/prisma/enums.ts';
export type { ReturnAuthorization, ReturnAuthorizationLine, ReturnReceipt } from './generated/prisma/client.ts';
export { ReturnStatus } from './generated/prisma/enums.ts';
export {
  TOPICS,
  IN_PROCESS_EVENTS,
  EVENT_NAMES,
  isTopic,
  partitionKeyOf,
  type TopicName,
  type InProcessEventName,
  type EventName,
  type EventPayloads,
} from './events/catalog.ts';
export { validateEvent, EventSchemaError, type EventValidationError } from './events/validator.ts';
export { EVENT_ID_HEADER } from './outbox/kafka-publisher.ts';
export {
  DEFAULT_RATE_LIMIT_POLICIES,
  staticRateLimitPolicies,
  refillWindowSeconds,
  type RateLimitPolicy,
  type RateLimitPolicyLookup,
} from './rate-limit/policy.ts';
export { RateLimiter, type RateLimiterOptions } from './rate-limit/limiter.ts';
export { RateLimitDecisions, type RateLimitDecision, type RateLimitResult } from './rate-limit/decisions.ts';
export { RateLimitPolicies, RATE_LIMIT_POLICIES_CHANNEL, type RateLimitPoliciesOptions } from './rate-limit/policies.ts';
export { tokenBucketStoreFor, type TokenBucketStore } from './rate-limit/bucket-store.ts';
export { openRateLimiter, type OpenRateLimiterOptions, type OpenedRateLimiter } from './rate-limit/open-rate-limiter.ts';
export { keyIdOf } from '@shop/runtime';
export { keyringOf, masterKeyring, type MasterKey, type MasterKeyring } from './secrets/keyring.ts';
export { SecretUnreadableError } from './secrets/envelope.ts';
export {
  readStoredSecret,
  setStoredSecret,
  storedSecretStatus,
  type SecretWrite,
  type StoredSecretStatus,
} from './secrets/stored-secrets.ts';
export { rowsPerKeyId, type RowsPerKeyId } from './secrets/rows-per-key.ts';
export { rewrapSecrets, type RewrapOptions, type RewrapProgress, type RewrapResult } from './secrets/rewrap.ts';
export { keepPace, realClock, type PaceClock } from './pace.ts';
export type { SearchDocument, SearchEngine, SearchHit, SearchQuery, SearchResult } from './search/search-engine.ts';
export { postgresSearchEngine } from './search/postgres-search-engine.ts';
export { searchEnginesFor, type SearchConfig, type SearchEngines } from './search/search-engines.ts';
export { storefrontSearchKeys, type ScopedSearchKey, type StorefrontSearchKeys } from './search/meilisearch/storefront-search-keys.ts';
export { registerSearchFreshnessMetric } from './search/search-metrics.ts';
export type {
  AuthorizeRequest,
  CaptureRequest,
  DeclineCode,
  GatewayAnswer,
  GatewayError,
  GatewayLookup,
  GatewayOperation,
  Money,
  OperationKind,
  PaymentGateway,
  PermanentErrorCode,
  RefundRequest,
  RetryableErrorCode,
  VoidRequest,
} from './payments/gateway.ts';
export { HttpPaymentGateway, type HttpGatewayOptions } from './payments/http-gateway.ts';
export { IDEMPOTENCY_KEY_HEADER, type WireError } from './payments/wire.ts';
export {
  openPaymentGateway,
  type PaymentGatewayContext,
  type PaymentGatewayProvider,
  type PaymentGatewayRegistry,
} from './payments/gateway-provider.ts';
export {
  GATEWAY_API_KEY_SECRET,
  GATEWAY_KEY_TTL_MS,
  GatewayCredentialsMissingError,
  cachedCredentials,
  givenCredentials,
  storedSecretCredentials,
  type GatewayCredentials,
} from './payments/gateway-credentials.ts';
export { discoverExtensions, type DiscoveredExtension } from './extensions/discovery.ts';
export {
  settingFits,
  settingTypeWords,
  type ExtensionManifest,
  type ExtensionSchedule,
  type ExtensionSettingDeclaration,
  type ExtensionSettingType,
  type ExtensionSettingValue,
  type ExtensionWorkflows,
} from './extensions/manifest.ts';
export { ExtensionError } from './extensions/extension-error.ts';
export { extensionExport, extensionPart } from './extensions/extension-modules.ts';
export {
  extensionContext,
  extensionSecretKey,
  extensionSettingKey,
  extensionSettingValue,
  type ExtensionActivityContext,
  type ExtensionContext,
  type ExtensionSettings,
} from './extensions/extension-settings.ts';
export {
  configureExtensions,
  extensionConfigDeclaration,
  loadExtensionConfig,
  type ExtensionConfig,
} from './extensions/extension-config.ts';
export { migrateExtensions } from './extensions/extension-migrations.ts';
export { discoverExtensionsOrExit, refuseExtensionRevisionMismatch } from './extensions/boot.ts';
