import { ConfigError, EnvReader, LOG_LEVELS, type LogLevel } from '@shop/runtime';

/** What the example storefront reads from its environment. */
export interface StorefrontConfig {
  /** The api's base URL; beacons are relayed to its POST /track. */
  readonly apiUrl: string;
  readonly host: string;
  readonly port: number;
  /** How long the api may take to answer a relayed beacon. */
  readonly apiTimeoutMs: number;
  readonly logLevel: LogLevel;
}

/** Reads API_URL, HOST, PORT, API_TIMEOUT_MS and LOG_LEVEL; every problem at once, one line each. */
export function loadStorefrontConfig(env: NodeJS.ProcessEnv): StorefrontConfig {
  const read = new EnvReader(env);
  const config: StorefrontConfig = {
    apiUrl: read.url('API_URL', ['http', 'https']) ?? 'http://127.0.0.1:3000',
    host: read.optional('HOST') ?? '127.0.0.1',
    port: read.integer('PORT', 8080, 0, 65_535),
    apiTimeoutMs: read.integer('API_TIMEOUT_MS', 5_000, 1, 600_000),
    logLevel: read.oneOf<LogLevel>('LOG_LEVEL', LOG_LEVELS, 'INFO', (value) => value.toUpperCase()),
  };
  if (read.problems.length > 0) throw new ConfigError(read.problems);
  return config;
}
