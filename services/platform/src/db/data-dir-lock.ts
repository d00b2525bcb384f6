import { open, readFile, rm } from 'node:fs/promises';
import { isProcessAlive } from '@shop/runtime';

/**
 * Claims `<dataDir>.lock` for this process, so two processes never open the same PGlite files.
 * A lock left by a process that no longer runs is taken over. Returns the release function.
 */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const lockFile = `${dataDir}.lock`;
  for (;;) {
    try {
      const handle = await open(lockFile, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => rm(lockFile, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number((await readFile(lockFile, 'utf8').catch(() => '')).trim());
    if (Number.isInteger(holder) && holder > 0 && isProcessAlive(holder)) {
      throw new Error(`${dataDir} is in use by another process (pid ${holder}): stop it, or set DATABASE_URL`);
    }
    await rm(lockFile, { force: true });
  }
}
