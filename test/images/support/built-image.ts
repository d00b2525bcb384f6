// The smoke tests' image: built (or reused, see images/build/build-images.ts) once per test file
// and opened as a container of its own.
import { IMAGES, type ImageTarget } from '../../../images/contents.ts';
import { buildImages, type BuiltImage } from '../../../images/build/build-images.ts';
import { openContainer, type ImageContainer } from './image-container.ts';

/** A cold build (debootstrap, npm ci, two commits) takes minutes; an unchanged tree, seconds. */
export const BUILD_TIMEOUT_MS = 30 * 60_000;

export async function openBuiltImage(target: ImageTarget): Promise<{ built: BuiltImage; container: ImageContainer }> {
  const images = await buildImages((line) => console.log(`[image:build] ${line}`));
  const built = images.find(({ image }) => image.target === target);
  if (!built) throw new Error(`no ${target} image among ${IMAGES.map(({ target: name }) => name).join(', ')}`);
  return { built, container: await openContainer(built.archive) };
}
