import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_NAMES } from './catalog.ts';
import { EventSchemaError, EVENT_SCHEMAS_DIR, validateEvent } from './validator.ts';
import { checkEvents } from './check-events.ts';

const SCHEMAS_ROOT = path.dirname(EVENT_SCHEMAS_DIR);
const SERVICES = path.resolve(import.meta.dirname, '../../..');

async function example(name: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(path.join(SCHEMAS_ROOT, 'examples', `${name}.json`), 'utf8'));
}

describe('validateEvent', () => {
  for (const name of EVENT_NAMES) {
    it(`accepts the documented example of ${name}`, async () => {
      expect(validateEvent(name, await example(name))).toEqual([]);
    });
  }

  it('names the failing path of each problem', async () => {
    const order = await example('shop.orders.placed.v1');
    const lines = order.lines as Array<Record<string, unknown>>;
    const bad = { ...order, currency: 'euro', lines: [{ ...lines[0], quantity: 0 }], surprise: true };
    const errors = validateEvent('shop.orders.placed.v1', bad);
    expect(errors).toEqual(
      expect.arrayContaining([
        { path: '/currency', message: 'must match pattern "^[A-Z]{3}$"' },
        { path: '/lines/0/quantity', message: 'must be >= 1' },
        { path: '/surprise', message: 'is not a known field' },
      ]),
    );
    expect(new EventSchemaError('shop.orders.placed.v1', errors).message).toMatch(/^invalid payload for shop\.orders\.placed\.v1: .*\/lines\/0\/quantity must be >= 1/);
  });

  it('rejects money as a number and ids as numbers', async () => {
    const lead = { ...(await example('shop.leads.created.v1')), lead_id: 55 };
    expect(validateEvent('shop.leads.created.v1', lead)).toEqual([{ path: '/lead_id', message: 'must be string' }]);
  });
});

describe('check:events', () => {
  let work: string;
  let sources: string;

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'check-events-'));
    sources = path.join(work, 'src');
    await cp(SCHEMAS_ROOT, path.join(work, 'schemas'), { recursive: true });
  });

  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  const check = (sourceRoot = sources) => checkEvents({ sourceRoots: [sourceRoot], schemasDir: path.join(work, 'schemas', 'events') });

  it('passes on the real tree', async () => {
    const result = await checkEvents({ sourceRoots: [SERVICES] });
    expect(result.problems).toEqual([]);
  });

  it('fails on a source that emits an undocumented topic or a computed name', async () => {
    await mkdir(sources, { recursive: true });
    await writeFile(
      path.join(sources, 'orders.ts'),
      [
        "await outbox.emit(tx, 'shop.orders.placed.v1', order);",
        'await emit(tx,',
        "  'shop.orders.shipped.v1', order);",
        'await emit(tx, topicFor(order), order);',
        "emitter.emit('unrelated', 1);",
      ].join('\n'),
    );
    const { problems, emitSites } = await check();
    expect(emitSites).toBe(3);
    expect(problems).toEqual([
      expect.stringMatching(/orders\.ts:2: emits shop\.orders\.shipped\.v1, which schemas\/topics\.md does not register$/),
      expect.stringMatching(/orders\.ts:4: emit's event name must be a string literal$/),
    ]);
  });

  it('fails when a registered topic breaks the naming rule or lacks a schema, or a schema id differs', async () => {
    await rm(sources, { recursive: true, force: true });
    const registry = path.join(work, 'schemas', 'topics.md');
    const text = await readFile(path.join(SCHEMAS_ROOT, 'topics.md'), 'utf8');
    await writeFile(registry, text.replace('`shop.leads.created.v1`', '`shop.Leads.created`'));
    const schemaFile = path.join(work, 'schemas', 'events', 'shop.accounts.created.v1.json');
    const schema = JSON.parse(await readFile(schemaFile, 'utf8'));
    await writeFile(schemaFile, JSON.stringify({ ...schema, $id: 'shop.accounts.made.v1' }));

    const { problems } = await check(work);
    expect(problems).toEqual(
      expect.arrayContaining([
        'shop.Leads.created: topic names follow shop.<domain>.<event>.v<N>',
        'schemas/topics.md and catalog.ts TOPICS list different topics or partition keys',
        expect.stringMatching(/^shop\.Leads\.created: registered but has no schema/),
        'shop.accounts.created.v1: the schema\'s $id is "shop.accounts.made.v1", not the event name',
        'shop.leads.created.v1.json: a schema for an event that schemas/topics.md does not register',
      ]),
    );
  });
});
