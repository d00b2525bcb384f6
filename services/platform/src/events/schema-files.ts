import path from 'node:path';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../../../..');
/** One JSON Schema per event, named `<event name>.json`. */
export const SCHEMAS_DIR = path.join(REPO_ROOT, 'schemas/events');
/** One valid payload per event, named like its schema: documentation and test data. */
export const EXAMPLES_DIR = path.join(REPO_ROOT, 'schemas/examples');
/** The topic registry document. */
export const REGISTRY_PATH = path.join(REPO_ROOT, 'schemas/topics.md');
