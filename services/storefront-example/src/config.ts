import { ConfigError, EnvReader, LOG_LEVELS, type LogLevel } from '@shop/runtime';

/** What the example storefront reads from its environment. */
export interface StorefrontConfig {
  /** The api's base URL; beacons are relayed to its POST /track. */
  readonly apiUrl: string;
  readonly host: string;
  readonly port: number;
  /** How long the api may take to answer a relayed beacon. */
  readonly apiTimeoutMs: number;
  /** The storefront access token sent as X-Storefront-Token, with each shopper's address as X-Shopper-IP; none: limited by address. */
  readonly storefrontToken: string | undefined;
  readonly logLevel: LogLevel;
}

/** What createStorefrontToken answers: `sft_` and 32 random bytes in base64url. */
const STOREFRONT_TOKEN = /^sft_[A-Za-z0-9_-]{43}$/;

function storefrontToken(read: EnvReader): string | undefined {
  const token = read.optional('STOREFRONT_TOKEN');
  if (token === undefined || STOREFRONT_TOKEN.test(token)) return token;
  read.problem('STOREFRONT_TOKEN', 'must be a storefront access token as createStorefrontToken answers it (sft_ and 43 more characters)');
  return undefined;
}

/** Reads API_URL, HOST, PORT, API_TIMEOUT_MS, STOREFRONT_TOKEN and LOG_LEVEL; every problem at once, one line each. */
export function loadStorefrontConfig(env: NodeJS.ProcessEnv): StorefrontConfig {
  const read = new EnvReader(env);
  const config: StorefrontConfig = {
    apiUrl: read.url('API_URL', ['http', 'https']) ?? 'http://127.0.0.1:3000',
    host: read.optional('HOST') ?? '127.0.0.1',
    port: read.integer('PORT', 8080, 0, 65_535),
    apiTimeoutMs: read.integer('API_TIMEOUT_MS', 5_000, 1, 600_000),
    storefrontToken: storefrontToken(read),
    logLevel: read.oneOf<LogLevel>('LOG_LEVEL', LOG_LEVELS, 'INFO', (value) => value.toUpperCase()),
  };
  if (read.problems.length > 0) throw new ConfigError(read.problems);
  return config;
}
