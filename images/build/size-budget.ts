// The images' size budget: the unpacked size of their files, which is what a node stores and what
// grows when a dependency is added. The compressed archive (what a registry stores) is reported beside it.
import type { BuildRecord } from './build-images.ts';

const MB = 1_000_000;

export interface SizeReport {
  readonly line: string;
  readonly withinBudget: boolean;
}

export function sizeReport(built: BuildRecord & { readonly image: { readonly sizeBudgetMB: number } }): SizeReport {
  const size = built.sizeBytes / MB;
  const budget = built.image.sizeBudgetMB;
  return {
    line: `[image-size] ${built.reference}: ${size.toFixed(0)} MB unpacked (budget ${budget} MB), ${(built.archiveBytes / MB).toFixed(0)} MB compressed archive`,
    withinBudget: size <= budget,
  };
}
