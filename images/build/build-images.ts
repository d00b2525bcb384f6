// The offline build of every image (npm run image:build, and the smoke tests' setup): base root
// filesystem, build stage, then one buildah commit per image, each step reused while its inputs
// are unchanged. An image whose inputs and labels match its last build keeps that archive.
import { existsSync } from 'node:fs';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { IMAGES, imageReference, type ImageSpec } from '../contents.ts';
import { readSyncManifest, syncProblem, SYNC_MANIFEST_FILE, type SyncManifest } from '../sync/sync-manifest.ts';
import { commitImage } from './commit-image.ts';
import { buildInputs } from './inputs.ts';
import { imageLabels } from './labels.ts';
import { OUTPUT_DIR, archivePath, keyOf, recordPath, workDir } from './layout.ts';
import { withLock } from './lock.ts';
import { baseRootfs } from './rootfs.ts';
import { buildStage, type BuildStage } from './stage.ts';

/** Written next to each archive. */
export interface BuildRecord {
  readonly reference: string;
  readonly digest: string;
  readonly sizeBytes: number;
  readonly archiveBytes: number;
  readonly labels: Readonly<Record<string, string>>;
  /** Of the base root filesystem, the build stage and the labels. */
  readonly key: string;
  readonly seconds: number;
}

export interface BuiltImage extends BuildRecord {
  readonly image: ImageSpec;
  readonly archive: string;
  /** True when the archive of an earlier build was kept. */
  readonly reused: boolean;
}

async function previousRecord(image: ImageSpec): Promise<BuildRecord | undefined> {
  if (!existsSync(archivePath(image))) return undefined;
  return JSON.parse(await readFile(recordPath(image), 'utf8').catch(() => '{}')) as BuildRecord;
}

export interface BuildOptions {
  /** EXTENSIONS_SYNC_HASH: the extension set the front ends were synced against; unset, the platform image's own. */
  readonly extensionsSyncHash?: string;
}

/**
 * The chain's check before a front end is built: its sync hash must be the platform image's
 * extension set (from the sync manifest the build stage wrote). Without one given, the front ends
 * are synced with this build: they have no extension UI of their own yet.
 */
async function checkFrontEndSync(stage: BuildStage, given: string | undefined): Promise<SyncManifest> {
  const platform = IMAGES.find((image) => image.extensionSync === 'manifest') as ImageSpec;
  const manifest = await readSyncManifest(join(stage.appDir(platform.target), SYNC_MANIFEST_FILE));
  const problem = syncProblem(manifest, given ?? manifest.setHash);
  if (problem !== undefined) throw new Error(`extension sync check failed: ${problem}`);
  return manifest;
}

export async function buildImages(log: (line: string) => void = () => {}, options: BuildOptions = {}): Promise<BuiltImage[]> {
  const work = workDir();
  await mkdir(work, { recursive: true });
  return withLock(join(work, 'lock'), async () => {
    const step = async <T extends { reused: boolean }>(what: string, make: () => Promise<T>): Promise<T> => {
      const started = Date.now();
      const result = await make();
      log(`${what}: ${result.reused ? 'reused' : `made in ${Math.round((Date.now() - started) / 1000)} s`}`);
      return result;
    };
    const rootfs = await step('base root filesystem (debootstrap)', () => baseRootfs(work));
    const inputs = await buildInputs();
    const stage = await step(`build stage (npm ci of ${inputs.files.length} files)`, () => buildStage(work, inputs));
    const synced = await checkFrontEndSync(stage, options.extensionsSyncHash);
    log(`extension sync: the front ends are built against ${synced.platformImage}'s extension set ${synced.setHash}`);
    await mkdir(OUTPUT_DIR, { recursive: true });
    const built: BuiltImage[] = [];
    for (const image of IMAGES) {
      const labels = await imageLabels(image);
      const key = keyOf([rootfs.key, stage.key, JSON.stringify(labels)]);
      const archive = archivePath(image);
      const previous = await previousRecord(image);
      if (previous?.key === key) {
        built.push({ ...previous, image, archive, reused: true });
        continue;
      }
      const started = Date.now();
      const parts = { rootfsDir: rootfs.dir, nodeBinary: stage.nodeBinary, appDir: stage.appDir(image.target), labels };
      const { digest, sizeBytes } = await commitImage(image, parts, work, archive);
      const { size: archiveBytes } = await stat(archive);
      const record: BuildRecord = { reference: imageReference(image), digest, sizeBytes, archiveBytes, labels, key, seconds: (Date.now() - started) / 1000 };
      await writeFile(recordPath(image), `${JSON.stringify(record, null, 2)}\n`);
      built.push({ ...record, image, archive, reused: false });
    }
    return built;
  });
}
