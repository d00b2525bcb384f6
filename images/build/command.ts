// Runs the programs the offline build drives (git, npm, debootstrap, cp, buildah).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { lastLines } from '../../test/infra/proc.ts';

const execFileAsync = promisify(execFile);

export interface CommandOptions {
  readonly cwd?: string;
}

/** Runs a program to completion and returns its standard output; fails with the end of its standard error. */
export async function command(program: string, args: readonly string[], options: CommandOptions = {}): Promise<string> {
  try {
    const { stdout } = await execFileAsync(program, args, { ...options, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    throw new Error(`${program} ${args.join(' ')} failed:\n${lastLines(`${stdout ?? ''}${stderr ?? String(error)}`, 30)}`, { cause: error });
  }
}
