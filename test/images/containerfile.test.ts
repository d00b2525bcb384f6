// The two build paths stay one: the Containerfile's build stage lays out each image with the same
// code as the offline builder (images/build/assemble-app.ts and images/rootfs/make-rootfs.sh), and
// its runtime stages carry exactly the settings of images/contents.ts, which the offline builder
// applies with `buildah config`. Also: the build context leaves out everything git ignores.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RUN_AS_USER } from '../../cdk8s/src/security.ts';
import { APP_DIR, IMAGES, NODE_PATH, RUN_AS } from '../../images/contents.ts';
import { imageLabels } from '../../images/build/labels.ts';
import { REPOSITORY_ROOT } from '../../images/build/layout.ts';
import { SYNC_MANIFEST_FILE } from '../../images/sync/sync-manifest.ts';
import { argsOf, keyValues, readContainerfile } from './support/containerfile.ts';

const stages = await readContainerfile();
const stageNamed = (name: string) => {
  const stage = stages.find((candidate) => candidate.name === name);
  if (!stage) throw new Error(`images/Containerfile has no stage ${name}`);
  return stage;
};

describe('images/Containerfile', () => {
  it("builds the base root filesystem and every image's application folder with the offline builder's code", () => {
    const runs = argsOf(stageNamed('build'), 'RUN').join(' && ');
    expect(runs).toContain(`make-rootfs /rootfs "$DEBIAN_MIRROR" ${RUN_AS_USER}`);
    expect(runs).toMatch(/npm ci\b/);
    for (const image of IMAGES) expect(runs).toContain(`node images/build/assemble-app.ts ${image.target} /out/${image.target}`);
  });

  for (const image of IMAGES) {
    describe(`its ${image.target} stage`, () => {
      const stage = stageNamed(image.target);

      it('starts from nothing and copies the root filesystem, Node, the application and its scripts', () => {
        // A front end's application comes through the stage that checks its extension sync.
        const appStage = image.extensionSync === 'front-end' ? `${image.target}-sync` : 'build';
        expect(stage.base).toBe('scratch');
        expect(argsOf(stage, 'COPY')).toEqual([
          '--from=build /rootfs/ /',
          `--from=build /src/node_modules/node/bin/node ${NODE_PATH}`,
          `--from=${appStage} /out/${image.target}/ ${APP_DIR}/`,
          ...Object.entries(image.scripts).map(([destination, source]) => `--chmod=755 ${source} ${destination}`),
        ]);
      });

      it('has the runtime settings of images/contents.ts', () => {
        expect(keyValues(argsOf(stage, 'ENV'))).toEqual(image.env);
        expect(argsOf(stage, 'WORKDIR')).toEqual([APP_DIR]);
        expect(argsOf(stage, 'USER')).toEqual([RUN_AS]);
        expect(argsOf(stage, 'EXPOSE')).toEqual([image.ports.join(' ')]);
        expect(argsOf(stage, 'ENTRYPOINT').map((json) => JSON.parse(json) as unknown)).toEqual([image.entrypoint]);
      });

      it('has the labels the offline builder sets', async () => {
        const labels = keyValues(argsOf(stage, 'LABEL'));
        const offline = await imageLabels(image);
        expect(Object.keys(labels).sort()).toEqual(Object.keys({ ...offline, 'org.opencontainers.image.source': '' }).sort());
        expect(labels['org.opencontainers.image.title']).toBe(image.title);
        expect(labels['org.opencontainers.image.description']).toBe(image.description);
      });
    });
  }
});

describe('the extension sync chain in images/Containerfile', () => {
  const platform = IMAGES.find((image) => image.extensionSync === 'manifest');
  for (const image of IMAGES.filter((candidate) => candidate.extensionSync === 'front-end')) {
    it(`checks ${image.name}'s EXTENSIONS_SYNC_HASH against the platform image's sync manifest before taking its application`, () => {
      const sync = stageNamed(`${image.target}-sync`);
      expect(sync.base).toBe('build');
      expect(argsOf(sync, 'ARG')).toEqual(['EXTENSIONS_SYNC_HASH']);
      expect(argsOf(sync, 'RUN')).toEqual([`node images/sync/verify-sync.ts /out/${platform?.target}/${SYNC_MANIFEST_FILE}`]);
    });
  }
});

describe('.containerignore', () => {
  it('leaves out of the build context everything git ignores', async () => {
    const read = async (file: string) =>
      (await readFile(join(REPOSITORY_ROOT, file), 'utf8'))
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line && !line.startsWith('#'));
    const containerIgnored = await read('.containerignore');
    // git matches a pattern without an inner slash at any depth; a container engine needs `**/` for that.
    const asContainerPattern = (gitPattern: string): string => {
      const pattern = gitPattern.replace(/\/$/, '');
      if (pattern.startsWith('/')) return pattern.slice(1);
      return pattern.includes('/') ? pattern : `**/${pattern}`;
    };
    const missing = (await read('.gitignore')).map(asContainerPattern).filter((pattern) => !containerIgnored.includes(pattern));
    expect(missing).toEqual([]);
  });
});
