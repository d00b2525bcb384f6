import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';

/** Recorded histories, `<WorkflowType>.<scenario>.json`, replayed by replay.test.ts. */
export const HISTORIES_DIR = path.resolve(import.meta.dirname, '../histories');

/** Set by `npm run workflows:record-histories`: the end-to-end workflow tests then save what they ran. */
export const RECORDING = process.env.RECORD_WORKFLOW_HISTORIES === '1';

/** Saves the history of a finished workflow run as `<workflowType>.<scenario>.json` in `dir` (an extension's own), when recording. */
export async function saveHistory(
  client: Client,
  workflowId: string,
  workflowType: string,
  scenario: string,
  dir = HISTORIES_DIR,
): Promise<void> {
  if (!RECORDING) return;
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, `${workflowType}.${scenario}.json`), `${JSON.stringify(JSON.parse(historyToJSON(history)), null, 1)}\n`);
}
