// The repository files the offline build reads (what the Containerfile's `COPY . .` brings that
// matters): the npm manifests and lockfile, Prisma's schema, the shared tsconfig, the images folder and every image's
// paths, as git sees them (tracked or new, not ignored), with one hash over names and contents.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { IMAGES } from '../contents.ts';
import { command } from './command.ts';
import { REPOSITORY_ROOT, keyOf } from './layout.ts';

export interface BuildInputs {
  /** Relative to the repository root, sorted. */
  readonly files: readonly string[];
  readonly key: string;
}

async function inputPaths(): Promise<string[]> {
  const manifest = JSON.parse(await readFile(join(REPOSITORY_ROOT, 'package.json'), 'utf8')) as { workspaces: string[] };
  return [
    'package.json',
    'package-lock.json',
    'prisma.config.ts',
    // The packages' tsconfig.json extend it, and Prisma's config loader (db:generate, the postinstall) reads them.
    'tsconfig.base.json',
    'prisma',
    'images',
    ...manifest.workspaces.map((workspace) => `${workspace}/package.json`),
    ...IMAGES.flatMap((image) => image.paths),
  ];
}

export async function buildInputs(): Promise<BuildInputs> {
  const paths = await inputPaths();
  const listed = await command('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPOSITORY_ROOT });
  const files = [...new Set(listed.split('\0'))]
    .filter((file) => paths.some((path) => file === path || file.startsWith(`${path}/`)))
    // A tracked file deleted in the working tree is still listed.
    .filter((file) => existsSync(join(REPOSITORY_ROOT, file)))
    .sort();
  const parts = await Promise.all(files.map(async (file) => [file, await readFile(join(REPOSITORY_ROOT, file))] as const));
  return { files, key: keyOf(parts.flat()) };
}
