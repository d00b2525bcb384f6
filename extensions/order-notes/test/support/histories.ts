import path from 'node:path';

/** Recorded histories of the extension's workflows (test/workflows/extension-workflows.test.ts records them), replayed by replay.test.ts. */
export const ORDER_NOTES_HISTORIES = path.resolve(import.meta.dirname, '../histories');
