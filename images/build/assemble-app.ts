// Lays out one image's application folder (what goes to APP_DIR) from a repository tree on which
// `npm ci` has run, so that Prisma's client is generated: the image's paths without tests, and a
// node_modules holding the production dependencies of the image's workspaces only (no Prisma CLI,
// no TypeScript). Both build paths run it: the Containerfile's build stage as
// `node images/build/assemble-app.ts <target> <out-dir>`, the offline builder by import.
import { copyFile, cp, mkdir, readFile, readdir, rm, symlink } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { arch } from 'node:process';
import { DATA_LINK, EXCLUDED, IMAGES, imageReference, type ImageSpec } from '../contents.ts';
import { SYNC_MANIFEST_FILE, writeSyncManifest } from '../sync/sync-manifest.ts';
import { command } from './command.ts';

/** Node's name for the CPU -> the Rust target triple Temporal's native bridge is published for. */
const TEMPORAL_TRIPLES: Readonly<Record<string, string>> = { x64: 'x86_64-unknown-linux-gnu', arm64: 'aarch64-unknown-linux-gnu' };
const TEMPORAL_RELEASES = 'node_modules/@temporalio/core-bridge/releases';

function isCopied(sourceDir: string, file: string): boolean {
  const path = relative(sourceDir, file);
  // node_modules comes from the production install, not from the build tree.
  return !path.split('/').includes('node_modules') && !EXCLUDED.some((pattern) => pattern.test(path));
}

async function workspacesOf(sourceDir: string): Promise<string[]> {
  const manifest = JSON.parse(await readFile(join(sourceDir, 'package.json'), 'utf8')) as { workspaces: string[] };
  return manifest.workspaces;
}

/**
 * `npm ci` of the image's workspaces without dev dependencies, into outDir. npm needs every
 * workspace's package.json to read the lockfile; those of other workspaces are removed afterwards.
 * `--legacy-peer-deps` leaves out the peers npm would add on its own: @prisma/client names the
 * Prisma CLI and TypeScript as peers, and neither runs in the image.
 */
async function installProductionDependencies(image: ImageSpec, sourceDir: string, outDir: string): Promise<void> {
  const workspaces = await workspacesOf(sourceDir);
  for (const file of ['package.json', 'package-lock.json', ...workspaces.map((workspace) => join(workspace, 'package.json'))]) {
    await mkdir(dirname(join(outDir, file)), { recursive: true });
    await copyFile(join(sourceDir, file), join(outDir, file));
  }
  const selection = image.workspaces.flatMap((workspace) => ['--workspace', workspace]);
  await command('npm', ['ci', '--omit=dev', '--legacy-peer-deps', '--ignore-scripts', '--no-audit', '--no-fund', ...selection], { cwd: outDir });
  await rm(join(outDir, 'package-lock.json'));
  for (const workspace of workspaces.filter((workspace) => !image.workspaces.includes(workspace))) {
    await removeWithEmptyParents(outDir, workspace);
  }
}

/** Removes outDir/path, then each parent folder it leaves empty (tools/ once tools/test-gateway is gone). */
async function removeWithEmptyParents(outDir: string, path: string): Promise<void> {
  await rm(join(outDir, path), { recursive: true });
  for (let parent = dirname(path); parent !== '.'; parent = dirname(parent)) {
    if ((await readdir(join(outDir, parent))).length > 0) return;
    await rm(join(outDir, parent), { recursive: true });
  }
}

/** Temporal's bridge ships a native library for five platforms; the image runs on one. */
async function removeForeignTemporalBridges(outDir: string): Promise<void> {
  const releases = join(outDir, TEMPORAL_RELEASES);
  const entries = await readdir(releases).catch(() => []);
  for (const entry of entries.filter((name) => name !== TEMPORAL_TRIPLES[arch])) {
    await rm(join(releases, entry), { recursive: true });
  }
}

export async function assembleApp(image: ImageSpec, sourceDir: string, outDir: string): Promise<void> {
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  await installProductionDependencies(image, sourceDir, outDir);
  for (const path of image.paths) {
    await cp(join(sourceDir, path), join(outDir, path), { recursive: true, filter: (file) => isCopied(sourceDir, file) });
  }
  await symlink(DATA_LINK.target, join(outDir, DATA_LINK.path));
  await removeForeignTemporalBridges(outDir);
  if (image.extensionSync === 'manifest') await writeSyncManifest(sourceDir, imageReference(image), join(outDir, SYNC_MANIFEST_FILE));
}

if (import.meta.main) {
  const [target, outDir] = process.argv.slice(2);
  const image = IMAGES.find((candidate) => candidate.target === target);
  if (!image || !outDir) {
    console.error(`usage: node images/build/assemble-app.ts <${IMAGES.map((candidate) => candidate.target).join('|')}> <out-dir>`);
    process.exit(2);
  }
  await assembleApp(image, process.cwd(), outDir);
}
