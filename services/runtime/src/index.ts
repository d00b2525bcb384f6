export { EnvReader } from './env-reader.ts';
export { ConfigError, EXIT_CONFIG, exitWithConfigProblems, loadOrExit } from './config-error.ts';
export { createLogger, disabledLogger, LOG_LEVELS, type Logger, type LoggerOptions, type LogLevel } from './logger.ts';
export { isProcessAlive } from './process-alive.ts';
export { EXIT_USAGE, runCommand } from './run-command.ts';
export { keyIdOf, masterKeyIdOf } from './key-id.ts';
export { formatRewrapSummary, parseRewrapSummary, type RewrapSummary } from './rewrap-summary.ts';
export { EXIT_DOWNGRADE_REFUSED, formatMigrationSummary, parseMigrationSummary, type MigrationSummary } from './migration-summary.ts';
