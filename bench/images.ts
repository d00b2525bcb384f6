// The images against their size budgets: npm run image:build's archives (built, or kept when nothing
// changed), one line per image with its unpacked size as a share of its budget, and the floor every
// image carries (the Debian base and the Node binary) as the cost model of what is left to trim.
import { stat } from 'node:fs/promises';
import { workDir } from '../images/build/layout.ts';
import { buildImages } from '../images/build/build-images.ts';
import { baseRootfs } from '../images/build/rootfs.ts';
import { command } from '../images/build/command.ts';

const MB = 1_000_000;

function emit(figure: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ bench: 'images', ...figure })}\n`);
}

const round = (bytes: number) => Math.round(bytes / MB);

export async function benchImages(): Promise<void> {
  const started = performance.now();
  const images = await buildImages((line) => process.stderr.write(`[bench images] ${line}\n`));
  const seconds = (performance.now() - started) / 1000;
  const rootfs = await baseRootfs(workDir());
  const baseBytes = Number((await command('du', ['-s', '--bytes', rootfs.dir])).split('\t')[0]);
  const nodeBytes = (await stat(process.execPath)).size;
  emit({
    figure: 'build',
    seconds: Math.round(seconds * 10) / 10,
    images_committed: images.filter((image) => !image.reused).length,
    images_kept: images.filter((image) => image.reused).length,
  });
  for (const built of images) {
    emit({
      figure: 'size against budget',
      image: built.reference,
      unpacked_mb: round(built.sizeBytes),
      budget_mb: built.image.sizeBudgetMB,
      ratio_to_budget: Math.round((built.sizeBytes / MB / built.image.sizeBudgetMB) * 100) / 100,
      within_budget: built.sizeBytes / MB <= built.image.sizeBudgetMB,
      compressed_archive_mb: round(built.archiveBytes),
      // What no change to the application can remove: the Debian base and Node.
      floor_mb: { debian_base: round(baseBytes), node: round(nodeBytes) },
      application_mb: round(built.sizeBytes - baseBytes - nodeBytes),
    });
  }
}
