// What the images carry, checked without building them: tools/ (the test payment gateway) is for
// development and tests, so no image's paths or workspaces include it; ESLint keeps the services'
// and extensions' sources from importing it, and the platform image's smoke test looks for it.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { IMAGES } from '../../images/contents.ts';

const underTools = (path: string) => path === 'tools' || path.startsWith('tools/');

describe('images/contents.ts', () => {
  it('leaves tools/ out of every image, while the repository has workspaces there', async () => {
    const { workspaces } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { workspaces: string[] };
    expect(workspaces).toContain('tools/test-gateway');
    for (const image of IMAGES)
      expect({ image: image.name, carried: [...image.paths, ...image.workspaces].filter(underTools) }).toEqual({
        image: image.name,
        carried: [],
      });
  });
});
