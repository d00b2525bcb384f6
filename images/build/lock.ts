// One image build at a time per cache folder: two test files, or a test run and `npm run
// image:build`, may ask at once. The lock is a folder holding the owner's pid; a dead owner's lock
// is taken over.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isProcessAlive } from '../../services/runtime/src/process-alive.ts';


async function ownerIsGone(lockDir: string): Promise<boolean> {
  const pid = Number(await readFile(join(lockDir, 'pid'), 'utf8').catch(() => ''));
  // No pid yet: the owner is between mkdir and writeFile.
  return pid > 0 && !isProcessAlive(pid);
}

export async function withLock<T>(lockDir: string, work: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      await mkdir(lockDir);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (await ownerIsGone(lockDir)) await rm(lockDir, { recursive: true, force: true });
      else await sleep(1_000);
    }
  }
  await writeFile(join(lockDir, 'pid'), String(process.pid));
  try {
    return await work();
  } finally {
    await rm(lockDir, { recursive: true, force: true });
  }
}
