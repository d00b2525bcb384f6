// Where the offline build reads and writes: OCI archives in the repository's build folder (ignored
// by git), everything reusable (base root filesystem, build stage, buildah storage) in the test
// infrastructure's cache, outside the repository.
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import { cacheDir } from '../../test/infra/layout.ts';
import { VERSION, type ImageSpec } from '../contents.ts';

export const REPOSITORY_ROOT = resolve(import.meta.dirname, '../..');
export const OUTPUT_DIR = join(REPOSITORY_ROOT, 'build', 'images');

/** `<cache>/images`: read on every call, as cacheDir() is. */
export function workDir(): string {
  return join(cacheDir(), 'images');
}

/** `build/images/shop-platform-0.1.0.oci.tar` */
export function archivePath(image: ImageSpec): string {
  return join(OUTPUT_DIR, `${image.name.replace('/', '-')}-${VERSION}.oci.tar`);
}

/** What the last build of the image recorded next to its archive (see BuildRecord). */
export function recordPath(image: ImageSpec): string {
  return archivePath(image).replace(/\.oci\.tar$/, '.json');
}

/** A short hash naming a cached folder after the inputs it was made from. */
export function keyOf(parts: readonly (string | Buffer)[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part).update('\0');
  return hash.digest('hex').slice(0, 16);
}
