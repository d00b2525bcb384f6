// Puts one image together with buildah, without a daemon or a base image: a scratch container
// gets the base root filesystem, the Node 24 binary and the application folder, the runtime
// settings of images/contents.ts, and is committed and exported as an OCI archive. buildah's
// storage (vfs driver) is a temporary folder, removed afterwards.
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { APP_DIR, NODE_PATH, RUN_AS, imageReference, type ImageSpec } from '../contents.ts';
import { command } from './command.ts';
import { REPOSITORY_ROOT } from './layout.ts';

export interface ImageParts {
  readonly rootfsDir: string;
  readonly nodeBinary: string;
  readonly appDir: string;
  readonly labels: Readonly<Record<string, string>>;
}

export interface CommittedImage {
  readonly digest: string;
  /** The unpacked size of the image's files. */
  readonly sizeBytes: number;
}

function configArguments(image: ImageSpec, labels: Readonly<Record<string, string>>): string[] {
  return [
    ['--entrypoint', JSON.stringify(image.entrypoint)],
    ['--workingdir', APP_DIR],
    ['--user', RUN_AS],
    ...Object.entries(image.env).map(([name, value]) => ['--env', `${name}=${value}`]),
    ...image.ports.map((port) => ['--port', `${port}/tcp`]),
    ...Object.entries(labels).map(([name, value]) => ['--label', `${name}=${value}`]),
  ].flat();
}

async function fillRootfs(mountDir: string, image: ImageSpec, parts: ImageParts): Promise<void> {
  await command('cp', ['-a', `${parts.rootfsDir}/.`, mountDir]);
  await copyFile(parts.nodeBinary, join(mountDir, NODE_PATH));
  await chmod(join(mountDir, NODE_PATH), 0o755);
  await mkdir(join(mountDir, APP_DIR));
  await command('cp', ['-a', `${parts.appDir}/.`, join(mountDir, APP_DIR)]);
  for (const [destination, source] of Object.entries(image.scripts)) {
    await copyFile(join(REPOSITORY_ROOT, source), join(mountDir, destination));
    await chmod(join(mountDir, destination), 0o755);
  }
}

export async function commitImage(image: ImageSpec, parts: ImageParts, work: string, archive: string): Promise<CommittedImage> {
  const storage = await mkdtemp(join(work, 'buildah-'));
  const buildah = (...args: string[]): Promise<string> =>
    command('buildah', ['--root', join(storage, 'root'), '--runroot', join(storage, 'run'), '--storage-driver', 'vfs', ...args]);
  try {
    const container = (await buildah('from', 'scratch')).trim();
    const mountDir = (await buildah('mount', container)).trim();
    await fillRootfs(mountDir, image, parts);
    const sizeBytes = Number((await command('du', ['-s', '--bytes', mountDir])).split('\t')[0]);
    await buildah('umount', container);
    await buildah('config', ...configArguments(image, parts.labels), container);
    const reference = imageReference(image);
    await buildah('commit', '--quiet', '--format', 'oci', '--rm', container, reference);
    await rm(archive, { force: true });
    const digestFile = join(storage, 'digest');
    await buildah('push', '--quiet', '--digestfile', digestFile, reference, `oci-archive:${archive}:${reference}`);
    const digest = (await readFile(digestFile, 'utf8')).trim();
    return { digest, sizeBytes };
  } finally {
    await rm(storage, { recursive: true, force: true });
  }
}
