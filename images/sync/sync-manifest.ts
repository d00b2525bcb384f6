// The build chain between the platform image and the front ends: the platform image build writes a
// sync manifest of its extension set (from the committed lockfile); a front-end image is built with
// EXTENSIONS_SYNC_HASH, the set hash its extension UI was synced against, and its build stops when
// that hash is missing or is not the platform image's.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EXTENSION_LOCK_FILE, readExtensionLock, type LockedExtension } from '../../services/platform/src/extensions/extension-lock.ts';

export interface SyncManifest {
  /** The platform image the manifest describes, e.g. `shop/platform:0.1.0`. */
  readonly platformImage: string;
  readonly extensions: readonly LockedExtension[];
  readonly setHash: string;
}

/** The manifest's file name, in the platform image's app folder and beside its archive. */
export const SYNC_MANIFEST_FILE = 'extensions-sync.json';

/** The manifest of the lockfile under `repositoryRoot`, for `platformImage`; written to `file`. */
export async function writeSyncManifest(repositoryRoot: string, platformImage: string, file: string): Promise<SyncManifest> {
  const lock = await readExtensionLock(join(repositoryRoot, EXTENSION_LOCK_FILE));
  const manifest: SyncManifest = { platformImage, extensions: lock.extensions, setHash: lock.setHash };
  await writeFile(file, `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

export async function readSyncManifest(file: string): Promise<SyncManifest> {
  return JSON.parse(await readFile(file, 'utf8')) as SyncManifest;
}

/** Why a front end built with `syncHash` does not belong with the manifest's platform image; undefined when it does. */
export function syncProblem(manifest: SyncManifest, syncHash: string | undefined): string | undefined {
  const extensions = manifest.extensions.map(({ id, version }) => `${id}@${version}`).join(', ') || 'no extensions';
  if (syncHash === undefined || syncHash.trim() === '') {
    return `EXTENSIONS_SYNC_HASH is not set: sync the front end's extension UI against ${manifest.platformImage} (${extensions}) and build it with the set hash of that sync`;
  }
  if (syncHash.trim() !== manifest.setHash) {
    return `EXTENSIONS_SYNC_HASH ${syncHash.trim()} is not the extension set of ${manifest.platformImage} (${manifest.setHash}: ${extensions}): the front end's extension sync is stale; sync it again against this platform image`;
  }
  return undefined;
}
