import { readdir, readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '@shop/runtime';
import { checkManifest, type ExtensionManifest } from './manifest.ts';
import { ExtensionError } from './extension-error.ts';
import { EXTENSION_LOCK_FILE, readExtensionLock, type LockedExtension } from './extension-lock.ts';
import { migrationNames } from '../db/migrations/migrations-directory.ts';

/** Where an extension was found, in the order discovery looks (a later one replaces an earlier one of the same id). */
export type ExtensionSource = 'installed' | 'in-tree' | 'dev';

export interface DiscoveredExtension {
  readonly id: string;
  readonly version: string;
  readonly packageName: string;
  /** Its package folder (symlinks resolved). */
  readonly dir: string;
  readonly source: ExtensionSource;
  readonly manifest: ExtensionManifest;
  /** What its `shop.config` module read from the environment, once `configureExtensions` ran (at every start); else undefined. */
  readonly config?: unknown;
}

export interface DiscoveryOptions {
  /** The deployment's folder: its package.json, node_modules/, extensions/ and the lockfile. */
  readonly root: string;
  /** SHOP_DEV_EXTENSIONS (config refuses it in production). */
  readonly devDir?: string | undefined;
  readonly logger: Logger;
}

/** The packages' folders of the deployment's declared dependencies. */
async function installedPackageDirs(root: string): Promise<string[]> {
  const manifest = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  const names = Object.keys(manifest.dependencies ?? {}).sort();
  const dirs = await Promise.all(names.map((name) => realpath(path.join(root, 'node_modules', name)).catch(() => undefined)));
  return dirs.filter((dir): dir is string => dir !== undefined);
}

/** The folders directly inside `dir` (none when it does not exist). */
async function packageDirsIn(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  const folders = entries
    .filter((entry) => entry.isDirectory() || entry.isSymbolicLink())
    .map((entry) => entry.name)
    .sort();
  return Promise.all(folders.map((name) => realpath(path.join(dir, name))));
}

/** The extension in `dir`, or undefined when its package.json has no `shop` field (it is not an extension). */
async function readExtension(dir: string, source: ExtensionSource): Promise<DiscoveredExtension | undefined> {
  const text = await readFile(path.join(dir, 'package.json'), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  let parsed: { name?: unknown; version?: unknown; shop?: unknown };
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch (error) {
    throw new ExtensionError(dir, `package.json is not JSON: ${(error as Error).message}`);
  }
  if (parsed.shop === undefined) return undefined;
  const label = typeof parsed.name === 'string' ? `${parsed.name} (${dir})` : dir;
  const checked = checkManifest(parsed.shop);
  if ('problem' in checked) throw new ExtensionError(label, checked.problem);
  const { manifest } = checked;
  if (typeof parsed.version !== 'string' || parsed.version === '')
    throw new ExtensionError(manifest.id, `package.json in ${dir} needs a "version"`);
  await checkMigrationsHead(manifest, dir);
  return {
    id: manifest.id,
    version: parsed.version,
    packageName: typeof parsed.name === 'string' ? parsed.name : manifest.id,
    dir,
    source,
    manifest,
  };
}

/**
 * The packaged head must be the chain's newest migration: a release that forgot to move it would never be applied.
 * Only the folder names are listed; the SQL is read by the api when it migrates.
 */
async function checkMigrationsHead(manifest: ExtensionManifest, dir: string): Promise<void> {
  if (manifest.migrations === undefined) return;
  const newest = (await migrationNames(path.join(dir, manifest.migrations.dir))).at(-1);
  if (newest !== manifest.migrations.head) {
    throw new ExtensionError(
      manifest.id,
      `shop.migrations.head is "${manifest.migrations.head}" but the newest migration in ${manifest.migrations.dir} is ${newest === undefined ? 'none' : `"${newest}"`}`,
    );
  }
}

async function extensionsIn(dirs: readonly string[], source: ExtensionSource): Promise<DiscoveredExtension[]> {
  const found = (await Promise.all(dirs.map((dir) => readExtension(dir, source)))).filter((extension) => extension !== undefined);
  const twice = found.find((extension, index) => found.findIndex((other) => other.id === extension.id) !== index);
  if (twice !== undefined)
    throw new ExtensionError(
      twice.id,
      `found twice among the ${source} extensions (${found
        .filter((e) => e.id === twice.id)
        .map((e) => e.dir)
        .join(', ')})`,
    );
  return found;
}

/** "missing a@1; extra b@2; c is 2.0 (locked 1.0)", or undefined when the sets are the same. */
function lockDifference(locked: readonly LockedExtension[], discovered: readonly LockedExtension[]): string | undefined {
  const lockedById = new Map(locked.map((entry) => [entry.id, entry.version]));
  const foundById = new Map(discovered.map((entry) => [entry.id, entry.version]));
  const missing = locked.filter((entry) => !foundById.has(entry.id)).map((entry) => `${entry.id}@${entry.version}`);
  const extra = discovered.filter((entry) => !lockedById.has(entry.id)).map((entry) => `${entry.id}@${entry.version}`);
  const changed = discovered
    .filter((entry) => lockedById.has(entry.id) && lockedById.get(entry.id) !== entry.version)
    .map((entry) => `${entry.id} is ${entry.version} (locked ${lockedById.get(entry.id)})`);
  const parts = [
    missing.length > 0 ? `missing ${missing.join(', ')}` : undefined,
    extra.length > 0 ? `not locked ${extra.join(', ')}` : undefined,
    changed.length > 0 ? changed.join(', ') : undefined,
  ].filter((part) => part !== undefined);
  return parts.length === 0 ? undefined : parts.join('; ');
}

/**
 * Finds the extensions: the deployment's declared dependencies whose package.json has a `shop` field,
 * then the folders of `extensions/`, then those of SHOP_DEV_EXTENSIONS. One of the same id found later
 * replaces the earlier one (a dev-linked copy replaces the installed release). A set that differs from
 * the lockfile logs one warning and is used anyway.
 *
 * @throws ExtensionError naming the extension and the field when a manifest is invalid.
 * @throws ExtensionLockError when the lockfile cannot be read or is inconsistent.
 */
export async function discoverExtensions(options: DiscoveryOptions): Promise<DiscoveredExtension[]> {
  const { root, devDir, logger } = options;
  const sources: Array<[ExtensionSource, Promise<string[]>]> = [
    ['installed', installedPackageDirs(root)],
    ['in-tree', packageDirsIn(path.join(root, 'extensions'))],
    ...(devDir === undefined ? [] : [['dev', packageDirsIn(path.resolve(devDir))] as [ExtensionSource, Promise<string[]>]]),
  ];
  const byId = new Map<string, DiscoveredExtension>();
  for (const [source, dirs] of sources) {
    for (const extension of await extensionsIn(await dirs, source)) {
      const earlier = byId.get(extension.id);
      if (earlier !== undefined) {
        logger.info(
          { extension: extension.id },
          `extension ${extension.id}: the ${source} one (${extension.dir}) replaces the ${earlier.source} one (${earlier.dir})`,
        );
        byId.delete(extension.id);
      }
      byId.set(extension.id, extension);
    }
  }
  const extensions = [...byId.values()];
  const lock = await readExtensionLock(path.join(root, EXTENSION_LOCK_FILE));
  const difference = lockDifference(lock.extensions, extensions);
  if (difference !== undefined)
    logger.warn({ difference }, `the extensions differ from ${EXTENSION_LOCK_FILE}: ${difference}; starting anyway`);
  return extensions;
}
