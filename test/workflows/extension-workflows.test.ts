// The worker runs the extensions' workflows: order-notes' digest is bundled with the core's workflows, its
// activity registered and its schedule created beside the core's, and a run reads the extension's secret
// setting. A dev extension whose workflow type is taken stops the worker with one line and exit code 78.
import { createHmac } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PERIODIC_WORKFLOWS } from '@shop/domain/workflows';
import { extensionSecretKey, setStoredSecret } from '@shop/platform';
import { spawnService } from '../support/service-process.ts';
import { waitFor } from '../support/wait.ts';
import { saveHistory } from '../../services/worker/test/support/histories.ts';
import { addNote } from '../../extensions/order-notes/src/notes.ts';
import { signedText, writeDigest } from '../../extensions/order-notes/src/digests.ts';
import { ORDER_NOTES_HISTORIES } from '../../extensions/order-notes/test/support/histories.ts';
import { openWorkflowShop, WORKER_MAIN, type WorkflowShop } from '../support/workflows.ts';

const DIGEST = 'OrderNotesDigestWorkflow';
const SIGNING_KEY = 'digest-signing-key-7c2e';

let shop: WorkflowShop;
let devDir: string | undefined;

beforeAll(async () => {
  shop = await openWorkflowShop('digests');
  devDir = await mkdtemp(path.join(tmpdir(), 'extension-workflows-'));
}, 180_000);

afterAll(async () => {
  await shop?.close();
  if (devDir !== undefined) await rm(devDir, { recursive: true, force: true });
});

interface DigestRow {
  workflow_id: string;
  period_end: Date;
  notes: number;
  signature: string | null;
}

const digests = async () =>
  (
    await shop.commerce.platform.database.pool.query<DigestRow>(
      'SELECT workflow_id, period_end, notes, signature FROM order_note_digests ORDER BY id',
    )
  ).rows;

async function addNotes(orderId: bigint, bodies: readonly string[]): Promise<void> {
  await shop.transaction(async (tx) => {
    for (const body of bodies) await addNote(tx, orderId, body, null);
  });
}

async function scheduleIds(): Promise<string[]> {
  const ids: string[] = [];
  for await (const schedule of shop.client.schedule.list()) ids.push(schedule.scheduleId);
  return ids.sort();
}

it('creates the order-notes.digest schedule beside the core ones, and its runs write signed digests once each', async () => {
  const { order } = await shop.placeOrder({ sku: 'noted', holdMs: 60 * 60_000 });
  await addNotes(order.id, ['Gift: wrap it', 'Call before delivery']);
  // As staff set it with setExtensionSecret: encrypted under the master key the worker holds too.
  await shop.transaction((tx) =>
    setStoredSecret(tx, shop.commerce.platform.masterKeys, {
      key: extensionSecretKey('order-notes', 'digest_signing_key'),
      value: SIGNING_KEY,
      setAt: new Date(),
      setByStaffUserId: null,
    }),
  );

  await shop.startWorker();
  expect(await scheduleIds()).toEqual([...PERIODIC_WORKFLOWS.map((periodic) => periodic.scheduleId), 'order-notes.digest'].sort());
  const schedule = await shop.client.schedule.getHandle('order-notes.digest').describe();
  expect(schedule.spec.intervals).toMatchObject([{ every: 60 * 60_000 }]);
  expect(schedule.action).toMatchObject({ type: 'startWorkflow', workflowType: DIGEST, taskQueue: 'shop' });

  await shop.client.schedule.getHandle('order-notes.digest').trigger();
  await waitFor(async () => (await digests()).length === 1, 30_000, 'the first digest');
  const [first] = await digests();
  expect(first).toMatchObject({ notes: 2, workflow_id: expect.stringMatching(/^order-notes\.digest-/) });
  expect(first?.signature).toBe(
    createHmac('sha256', SIGNING_KEY)
      .update(signedText(first?.workflow_id ?? '', first?.period_end ?? new Date(), 2))
      .digest('hex'),
  );
  await expect(shop.client.workflow.getHandle(first?.workflow_id ?? '').result()).resolves.toMatchObject({
    notes: 2,
    signature: first?.signature,
  });
  await saveHistory(shop.client, first?.workflow_id ?? '', DIGEST, 'signed', ORDER_NOTES_HISTORIES);

  // The next run counts only what was written since.
  await addNotes(order.id, ['Left at the door']);
  // A schedule names a run by the second it starts in (order-notes.digest-<time>): a trigger in the same second would not run.
  const firstSecond = Date.parse(first?.workflow_id.slice('order-notes.digest-'.length) ?? '');
  await waitFor(() => Date.now() >= firstSecond + 1_000, 5_000, "the second after the first run's");
  await shop.client.schedule.getHandle('order-notes.digest').trigger();
  await waitFor(async () => (await digests()).length === 2, 30_000, 'the second digest');
  expect((await digests()).map((digest) => digest.notes)).toEqual([2, 1]);

  // A retried activity of a run finds the run's digest instead of writing another.
  const again = await shop.transaction((tx) =>
    writeDigest(tx, { workflowId: first?.workflow_id ?? '', asOf: new Date(), signingKey: null }),
  );
  expect(again).toMatchObject({ workflowId: first?.workflow_id, notes: 2, signature: first?.signature });
  expect(await digests()).toHaveLength(2);
});

/** A dev extension whose workflow module exports `workflowType`. */
async function clashing(id: string, workflowType: string): Promise<string> {
  const dir = path.join(devDir ?? '', id);
  await mkdir(dir, { recursive: true });
  await writeFile(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: `@test/${id}`, version: '1.0.0', type: 'module', shop: { id, workflows: { module: './workflows.js' } } }),
  );
  await writeFile(path.join(dir, 'workflows.js'), `export async function ${workflowType}() { return 'clash'; }\n`);
  return dir;
}

it.each([
  ['core-clash', 'OrderLifecycleWorkflow', 'the core'],
  ['notes-clash', DIGEST, 'extension order-notes'],
])('refuses to start when extension %s exports the workflow type %s, taken by %s', async (id, workflowType, owner) => {
  const dir = await clashing(id, workflowType);
  try {
    // Nothing listens on port 1: the worker stops before it connects to the workflow engine.
    const worker = spawnService(WORKER_MAIN, {
      NODE_ENV: 'test',
      DATABASE_URL: shop.databaseUrl,
      WORKFLOW_HOST: '127.0.0.1:1',
      WORKER_PORT: '0',
      SHOP_DEV_EXTENSIONS: devDir ?? '',
    });
    expect((await worker.exited()).code).toBe(78);
    const lines = worker
      .output()
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('{'));
    expect(lines).toEqual([
      `config error: extension ${id}: shop.workflows.module: the workflow type ${workflowType} is taken by ${owner}; rename the export`,
    ]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
