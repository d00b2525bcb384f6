import { exitWithConfigProblems, type Config } from '@shop/platform';

export interface ConsumerSettings {
  /** Port of the /health, /ready and /metrics server. */
  readonly port: number;
}

/**
 * The consumer's own rules on top of the validated platform configuration: every problem is one
 * line naming the variable.
 */
export function readConsumerSettings(config: Config): { settings: ConsumerSettings; problems: string[] } {
  const problems: string[] = [];
  // Without DATABASE_URL a process starts its own embedded database: the consumer's handlers would
  // write where nobody reads, beside the api's embedded database rather than in it.
  if (config.brokers !== undefined && config.databaseUrl === undefined) {
    problems.push('DATABASE_URL: is required by the consumer when BROKER_ADDRESS is set (the embedded database belongs to the api)');
  }
  return { settings: { port: config.consumerPort }, problems };
}

/** Reads the consumer's variables or stops the process with one line per problem and exit code 78. */
export function loadConsumerSettingsOrExit(config: Config): ConsumerSettings {
  const { settings, problems } = readConsumerSettings(config);
  return problems.length === 0 ? settings : exitWithConfigProblems(problems);
}
