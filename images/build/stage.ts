// The offline path's build stage, as the Containerfile's: the input files copied into a folder,
// `npm ci` there (its postinstall generates Prisma's client), then each image's application
// folder assembled. Cached per input hash, so an unchanged tree is not installed again.
import { copyFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { IMAGES, type ImageTarget } from '../contents.ts';
import { assembleApp } from './assemble-app.ts';
import { cachedFolder } from './cached-folder.ts';
import { command } from './command.ts';
import type { BuildInputs } from './inputs.ts';
import { REPOSITORY_ROOT } from './layout.ts';

export interface BuildStage {
  readonly key: string;
  readonly reused: boolean;
  /** The Node 24 binary the `node` package installed. */
  readonly nodeBinary: string;
  appDir(target: ImageTarget): string;
}

export async function buildStage(work: string, inputs: BuildInputs): Promise<BuildStage> {
  const { dir, key, reused } = await cachedFolder(work, 'stage', inputs.key, async (stageDir) => {
    const sourceDir = join(stageDir, 'src');
    for (const file of inputs.files) {
      await mkdir(dirname(join(sourceDir, file)), { recursive: true });
      await copyFile(join(REPOSITORY_ROOT, file), join(sourceDir, file));
    }
    await command('npm', ['ci', '--no-audit', '--no-fund'], { cwd: sourceDir });
    for (const image of IMAGES) await assembleApp(image, sourceDir, join(stageDir, image.target));
  });
  return {
    key,
    reused,
    nodeBinary: join(dir, 'src/node_modules/node/bin/node'),
    appDir: (target) => join(dir, target),
  };
}
