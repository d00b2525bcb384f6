// Every recorded history of the extension's workflows replays against today's code, bundled as the
// worker bundles it (with the core's workflows): a change that would take a running digest down
// another path fails here.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { expect, it } from 'vitest';
import { bundleWorkflows } from '../../../services/worker/src/run-process.ts';
import { ORDER_NOTES_HISTORIES } from './support/histories.ts';

const WORKFLOWS = path.resolve(import.meta.dirname, '../src/workflows.ts');

it('replays a recorded history of every workflow of order-notes without a non-determinism error', async () => {
  const files = (await readdir(ORDER_NOTES_HISTORIES)).filter((file) => file.endsWith('.json')).sort();
  const histories = await Promise.all(
    files.map(async (file) => ({
      workflowId: file.replace(/\.json$/, ''),
      history: historyFromJSON(JSON.parse(await readFile(path.join(ORDER_NOTES_HISTORIES, file), 'utf8'))),
    })),
  );
  expect(histories.map(({ workflowId }) => workflowId.split('.')[0])).toEqual(['OrderNotesDigestWorkflow']);

  const failures: string[] = [];
  for await (const result of Worker.runReplayHistories({ workflowBundle: await bundleWorkflows([WORKFLOWS]) }, histories)) {
    if (result.error !== undefined) failures.push(`${result.workflowId}: ${result.error.message}`);
  }
  expect(failures).toEqual([]);
}, 120_000);
