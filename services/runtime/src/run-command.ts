import { ConfigError, exitWithConfigProblems } from './config-error.ts';

/** EX_USAGE from sysexits.h: the command line was wrong. */
export const EXIT_USAGE = 64;

/**
 * Runs a command line tool's `main` and exits with the code it answers. A ConfigError stops it with
 * one line per problem and code 78; any other failure with one line and code 1, never a stack trace.
 */
export async function runCommand(main: () => Promise<number>): Promise<void> {
  process.exitCode = await main().catch((error: unknown) => {
    if (error instanceof ConfigError) exitWithConfigProblems(error.problems);
    console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  });
}
