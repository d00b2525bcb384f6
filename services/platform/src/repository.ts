import path from 'node:path';

/** The repository root, resolved from this file, so scripts work from any working directory. */
export const REPO_ROOT = path.resolve(import.meta.dirname, '../../..');
