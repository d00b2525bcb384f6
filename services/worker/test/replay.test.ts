// Every recorded workflow history replays against today's workflow code: a change that would take a
// running workflow down another path (non-determinism) fails here, before it reaches a worker.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { WORKFLOW_TYPES } from '@shop/domain/workflows';
import { bundleWorkflows } from '../src/run-process.ts';
import { HISTORIES_DIR } from './support/histories.ts';

async function recordedHistories(): Promise<{ workflowId: string; history: ReturnType<typeof historyFromJSON> }[]> {
  const files = (await readdir(HISTORIES_DIR)).filter((file) => file.endsWith('.json')).sort();
  return Promise.all(
    files.map(async (file) => ({
      workflowId: file.replace(/\.json$/, ''),
      history: historyFromJSON(JSON.parse(await readFile(path.join(HISTORIES_DIR, file), 'utf8'))),
    })),
  );
}

describe('workflow replay', () => {
  it('replays a recorded history of every workflow type without a non-determinism error', async () => {
    const histories = await recordedHistories();
    const recordedTypes = new Set(histories.map(({ workflowId }) => workflowId.split('.')[0]));
    expect([...recordedTypes].sort()).toEqual(Object.values(WORKFLOW_TYPES).sort());

    const results = Worker.runReplayHistories({ workflowBundle: await bundleWorkflows() }, histories);
    const failures: string[] = [];
    for await (const result of results) {
      if (result.error !== undefined) failures.push(`${result.workflowId}: ${result.error.message}`);
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
