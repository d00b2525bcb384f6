/** What the example storefront reads from its environment. */
export interface StorefrontConfig {
  /** The api's base URL; beacons are relayed to its POST /track. */
  readonly apiUrl: string;
  readonly host: string;
  readonly port: number;
  /** How long the api may take to answer a relayed beacon. */
  readonly apiTimeoutMs: number;
}

export class ConfigError extends Error {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(problems.join('\n'));
    this.problems = problems;
  }
}

const wholeNumber = (value: string, min: number, max: number): number | undefined => {
  const number = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  return number >= min && number <= max ? number : undefined;
};

/** Reads API_URL, HOST, PORT and API_TIMEOUT_MS; every problem at once, one line each. */
export function loadStorefrontConfig(env: NodeJS.ProcessEnv): StorefrontConfig {
  const problems: string[] = [];
  const apiUrl = env.API_URL ?? 'http://127.0.0.1:3000';
  let protocol = '';
  try {
    protocol = new URL(apiUrl).protocol;
  } catch {
    // reported below
  }
  if (protocol !== 'http:' && protocol !== 'https:') problems.push('API_URL: must be an http:// or https:// URL, like http://127.0.0.1:3000');
  const port = wholeNumber(env.PORT ?? '8080', 0, 65_535);
  if (port === undefined) problems.push(`PORT: must be a whole number from 0 to 65535 (got "${env.PORT}")`);
  const apiTimeoutMs = wholeNumber(env.API_TIMEOUT_MS ?? '5000', 1, 600_000);
  if (apiTimeoutMs === undefined) problems.push(`API_TIMEOUT_MS: must be a whole number of milliseconds from 1 to 600000 (got "${env.API_TIMEOUT_MS}")`);
  if (problems.length > 0) throw new ConfigError(problems);
  return { apiUrl, host: env.HOST ?? '127.0.0.1', port: port as number, apiTimeoutMs: apiTimeoutMs as number };
}
