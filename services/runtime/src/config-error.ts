/** EX_CONFIG from sysexits.h: the process was started with a bad configuration. */
export const EXIT_CONFIG = 78;

/** A configuration that cannot run: one problem per bad variable, each naming it. */
export class ConfigError extends Error {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(`invalid configuration:\n${problems.join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** Stops the process with one line per problem and exit code 78. */
export function exitWithConfigProblems(problems: readonly string[]): never {
  for (const problem of problems) process.stderr.write(`config error: ${problem}\n`);
  process.exit(EXIT_CONFIG);
}

/** What `load` returns, or the process stopped by its ConfigError (other errors are thrown on). */
export function loadOrExit<T>(load: () => T): T {
  try {
    return load();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return exitWithConfigProblems(error.problems);
  }
}
