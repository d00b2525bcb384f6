import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IN_PROCESS_EVENTS, TOPICS } from '../../src/events/catalog.ts';
import { checkEvents } from '../../src/events/check-events.ts';
import { REGISTRY_PATH, REPO_ROOT, SCHEMAS_DIR } from '../../src/events/schema-files.ts';

const FIXTURES = path.join(import.meta.dirname, 'fixtures');

describe('checkEvents', () => {
  it('passes on the real tree', async () => {
    const result = await checkEvents({ sourceRoots: [path.join(REPO_ROOT, 'services')] });
    expect(result.problems).toEqual([]);
    expect(result).toMatchObject({ topics: Object.keys(TOPICS).length, inProcessEvents: IN_PROCESS_EVENTS.length });
    expect(result.emitSites).toBeGreaterThan(0);
  });

  it('reports each undocumented, computed or badly named emit with its line', async () => {
    const result = await checkEvents({ sourceRoots: [path.join(FIXTURES, 'bad-emits')] });
    const file = 'services/platform/test/events/fixtures/bad-emits/producer.ts';
    expect(result.problems).toEqual([
      `${file}:9: emits shop.orders.shipped.v1, which is not in the registry`,
      `${file}:10: emit name must be a string literal`,
      `${file}:11: emits shop.Orders.placed, which is not in the registry; topics are named shop.<domain>.<event>.v<N>, lowercase, words joined by underscores`,
    ]);
    // The multi-line template-string call, the call through a constant and the in-process event are fine; events.emit is not ours.
    expect(result.emitSites).toBe(6);
  });

  describe('on a copy of the schemas', () => {
    let work: string;
    let schemasDir: string;
    let registryPath: string;
    const check = () => checkEvents({ sourceRoots: [], schemasDir, registryPath });
    const editSchema = async (name: string, edit: (schema: Record<string, unknown>) => unknown) => {
      const file = path.join(schemasDir, `${name}.json`);
      await writeFile(file, JSON.stringify(edit(JSON.parse(await readFile(file, 'utf8')))));
    };

    beforeEach(async () => {
      work = await mkdtemp(path.join(tmpdir(), 'check-events-'));
      schemasDir = path.join(work, 'events');
      registryPath = path.join(work, 'topics.md');
      await cp(SCHEMAS_DIR, schemasDir, { recursive: true });
      await cp(REGISTRY_PATH, registryPath);
    });

    afterEach(async () => {
      await rm(work, { recursive: true, force: true });
    });

    it('passes while nothing is changed', async () => {
      expect((await check()).problems).toEqual([]);
    });

    it('detects a schema whose $id is not its file name', async () => {
      await editSchema('shop.accounts.created.v1', (schema) => ({ ...schema, $id: 'shop.accounts.made.v1' }));
      expect((await check()).problems).toEqual([
        expect.stringMatching(
          /shop\.accounts\.created\.v1\.json: \$id is "shop\.accounts\.made\.v1", not the file name "shop\.accounts\.created\.v1"$/,
        ),
      ]);
    });

    it('detects an invalid schema and a missing one', async () => {
      await editSchema('shop.leads.created.v1', (schema) => ({
        ...schema,
        properties: { ...(schema.properties as object), email: { type: 'text' } },
      }));
      await rm(path.join(schemasDir, 'order.completed.json'));
      const { problems } = await check();
      expect(problems).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/shop\.leads\.created\.v1\.json: not a valid JSON Schema: .*type/),
          expect.stringMatching(/^order\.completed: registered, but .*order\.completed\.json does not exist$/),
        ]),
      );
    });

    it('detects a schema field the registry does not document', async () => {
      await editSchema('shop.leads.created.v1', (schema) => ({
        ...schema,
        properties: { ...(schema.properties as object), phone: { type: 'string' } },
      }));
      const { problems } = await check();
      expect(problems).toContain('shop.leads.created.v1: field phone is not documented in the registry');
    });

    it('detects a badly named registered topic and its disagreement with catalog.ts', async () => {
      const text = await readFile(registryPath, 'utf8');
      await writeFile(
        registryPath,
        text
          .replace('| `order_id` | Proportional to order edits', '| `order_number` | Proportional to order edits')
          .replaceAll('shop.leads.created.v1', 'shop.Leads.created'),
      );
      await cp(path.join(SCHEMAS_DIR, 'shop.leads.created.v1.json'), path.join(schemasDir, 'shop.Leads.created.json'));
      await rm(path.join(schemasDir, 'shop.leads.created.v1.json'));
      const { problems } = await check();
      expect(problems).toEqual(
        expect.arrayContaining([
          'shop.Leads.created: topics are named shop.<domain>.<event>.v<N>, lowercase, words joined by underscores',
          'shop.Leads.created: in the registry but not in catalog.ts TOPICS',
          'shop.leads.created.v1: in catalog.ts TOPICS but not in the registry',
          'shop.orders.modified.v1: partition key is order_number in the registry but order_id in catalog.ts',
        ]),
      );
    });

    it('rejects a registry table that breaks the format', async () => {
      const text = await readFile(registryPath, 'utf8');
      await writeFile(registryPath, text.replace('| `shop.cart.line_added.v1` | cart |', '| shop.cart.line_added.v1 | cart |'));
      const { problems } = await check();
      expect(problems).toEqual(
        expect.arrayContaining([expect.stringMatching(/topics\.md:\d+: the Topic cell must be the name in backticks$/)]),
      );
    });

    it('detects stale generated payload types', async () => {
      await editSchema('shop.leads.created.v1', (schema) => ({
        ...schema,
        required: (schema.required as string[]).filter((field) => field !== 'name'),
      }));
      const { problems } = await check();
      expect(problems).toContain('services/platform/src/events/payloads.generated.ts: stale, regenerate it with npm run events:generate');
    });
  });
});
