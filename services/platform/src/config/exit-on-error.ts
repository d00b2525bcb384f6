import { ConfigError, loadConfig, type Config } from './config.ts';

/** EX_CONFIG from sysexits.h: the process was started with a bad configuration. */
export const EXIT_CONFIG = 78;

/** Loads the configuration or stops the process with one line per problem and exit code 78. */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return exitWithConfigProblems(error.problems);
  }
}

/** Stops the process with one line per problem and exit code 78; a service's own rules use it too. */
export function exitWithConfigProblems(problems: readonly string[]): never {
  for (const problem of problems) process.stderr.write(`config error: ${problem}\n`);
  process.exit(EXIT_CONFIG);
}
