// A folder made once per key and kept in the work folder: `<work>/<kind>-<key>`, complete once its
// `<kind>-<key>.complete` marker exists. Making a new one removes the other keys' folders of that kind.
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface CachedFolder {
  readonly dir: string;
  readonly key: string;
  /** False when this call made it. */
  readonly reused: boolean;
}

export async function cachedFolder(work: string, kind: string, key: string, make: (dir: string) => Promise<void>): Promise<CachedFolder> {
  const dir = join(work, `${kind}-${key}`);
  const marker = `${dir}.complete`;
  if (existsSync(marker)) return { dir, key, reused: true };
  await rm(dir, { recursive: true, force: true });
  await mkdir(work, { recursive: true });
  await make(dir);
  await writeFile(marker, `${new Date().toISOString()}\n`);
  for (const entry of await readdir(work)) {
    if (entry.startsWith(`${kind}-`) && !entry.startsWith(`${kind}-${key}`)) await rm(join(work, entry), { recursive: true, force: true });
  }
  return { dir, key, reused: false };
}
