import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';

/** One pinned extension. */
export interface LockedExtension {
  readonly id: string;
  readonly version: string;
}

/** The committed lockfile: the extension set a deployment and its front ends are built with. */
export interface ExtensionLock {
  readonly extensions: readonly LockedExtension[];
  readonly setHash: string;
}

/** The lockfile, relative to the repository root (and to the app folder of the platform image). */
export const EXTENSION_LOCK_FILE = 'extensions/extensions.lock.json';

export class ExtensionLockError extends Error {
  constructor(file: string, problem: string) {
    super(`${file}: ${problem}`);
    this.name = 'ExtensionLockError';
  }
}

/** `sha256:` and the hash of the set's sorted `id@version` lines: the same set has the same hash in any order. */
export function extensionSetHash(extensions: readonly LockedExtension[]): string {
  const lines = extensions.map(({ id, version }) => `${id}@${version}\n`).sort();
  return `sha256:${createHash('sha256').update(lines.join('')).digest('hex')}`;
}

const isText = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

function lockedExtension(file: string, entry: unknown, index: number): LockedExtension {
  const { id, version } = (entry ?? {}) as Record<string, unknown>;
  if (!isText(id) || !isText(version)) throw new ExtensionLockError(file, `extensions[${index}] needs an "id" and a "version" (strings)`);
  return { id, version };
}

/** Reads the lockfile and checks it: its shape, each id once, and a setHash that is its extensions'. */
export async function readExtensionLock(file: string): Promise<ExtensionLock> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new ExtensionLockError(file, error instanceof Error ? error.message : String(error));
  }
  const { extensions, setHash } = (parsed ?? {}) as Record<string, unknown>;
  if (!Array.isArray(extensions)) throw new ExtensionLockError(file, '"extensions" must be a list of { id, version }');
  const locked = extensions.map((entry, index) => lockedExtension(file, entry, index));
  const twice = locked.find((entry, index) => locked.findIndex((other) => other.id === entry.id) !== index);
  if (twice !== undefined) throw new ExtensionLockError(file, `extension "${twice.id}" is listed twice`);
  const expected = extensionSetHash(locked);
  if (setHash !== expected)
    throw new ExtensionLockError(file, `"setHash" is ${JSON.stringify(setHash)} but its extensions hash to ${expected}`);
  return { extensions: locked, setHash: expected };
}
