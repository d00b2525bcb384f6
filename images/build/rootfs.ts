// The images' base root filesystem, made by images/rootfs/make-rootfs.sh (debootstrap from the
// mirror apt uses) and cached per script, mirror and user id.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RUN_AS_USER } from '../../cdk8s/src/security.ts';
import { cachedFolder, type CachedFolder } from './cached-folder.ts';
import { command } from './command.ts';
import { debianMirror } from './debian-mirror.ts';
import { REPOSITORY_ROOT, keyOf } from './layout.ts';

const SCRIPT = join(REPOSITORY_ROOT, 'images/rootfs/make-rootfs.sh');

export async function baseRootfs(work: string): Promise<CachedFolder> {
  const mirror = await debianMirror();
  const key = keyOf([await readFile(SCRIPT), mirror, String(RUN_AS_USER)]);
  return cachedFolder(work, 'rootfs', key, async (dir) => {
    await command('sh', [SCRIPT, dir, mirror, String(RUN_AS_USER)]);
  });
}
