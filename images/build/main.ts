// npm run image:build: builds shop/platform, shop/operator and shop/storefront-example without a
// daemon or a base image (see images/README.md) and prints, per image, its archive, digest and size
// against its budget. Fails when an image is over its budget, or when EXTENSIONS_SYNC_HASH is set
// and is not the platform image's extension set.
import { relative } from 'node:path';
import { buildImages } from './build-images.ts';
import { REPOSITORY_ROOT } from './layout.ts';
import { sizeReport } from './size-budget.ts';

const started = Date.now();
const images = await buildImages((line) => console.log(`[image:build] ${line}`), { extensionsSyncHash: process.env.EXTENSIONS_SYNC_HASH });
for (const built of images) {
  const how = built.reused ? 'unchanged, kept' : `committed in ${Math.round(built.seconds)} s`;
  console.log(`[image:build] ${built.reference} ${built.digest} ${relative(REPOSITORY_ROOT, built.archive)} (${how})`);
}
const report = images.map(sizeReport);
for (const { line } of report) console.log(line);
console.log(`[image:build] done in ${Math.round((Date.now() - started) / 1000)} s`);
if (report.some(({ withinBudget }) => !withinBudget)) process.exitCode = 1;
