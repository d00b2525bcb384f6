// Behind `npm run outbox:replay`: lists and replays parked outbox deliveries (docs/decisions.md § Events and the outbox).
import { parseArgs } from 'node:util';
import { createLogger, EXIT_USAGE, runCommand } from '@shop/runtime';
import { loadConfigOrExit } from '../config/config.ts';
import { openDatabase } from '../db/database.ts';
import { createMetricsRegistry } from '../metrics/registry.ts';
import {
  isEventReference,
  listParkedDeliveries,
  replayParkedDeliveries,
  type ParkedDelivery,
  type ParkedFilter,
} from './parked-deliveries.ts';

const usage = `usage: replay-cli.ts list [--listener=NAME | --event=ID]                        show parked deliveries: listener, event, attempts, age, last error
       replay-cli.ts (--all | --listener=NAME | --event=ID) [--batch-size=500]   replay them: the outbox dispatcher runs each listener on its event again
       ID is the outbox id or the event id (UUID) that list shows`;

type Command =
  | { readonly list: true; readonly filter: ParkedFilter }
  | { readonly list: false; readonly filter: ParkedFilter; readonly batchSize: number };

const OPTIONS = {
  all: { type: 'boolean' },
  listener: { type: 'string' },
  event: { type: 'string' },
  'batch-size': { type: 'string', default: '500' },
} as const;

function parse(): Command | undefined {
  let parsed;
  try {
    parsed = parseArgs({ allowPositionals: true, options: OPTIONS });
  } catch {
    return undefined; // an unknown option, or one without its value
  }
  const { positionals, values } = parsed;
  const selectors = [values.all, values.listener, values.event].filter((value) => value !== undefined).length;
  if (selectors > 1 || (values.event !== undefined && !isEventReference(values.event)) || values.listener === '') return undefined;
  const filter: ParkedFilter =
    values.listener !== undefined ? { listener: values.listener } : values.event !== undefined ? { event: values.event } : { all: true };
  if (positionals.length === 1 && positionals[0] === 'list' && values.all === undefined) return { list: true, filter };
  const batchSize = Number(values['batch-size']);
  if (positionals.length > 0 || selectors === 0 || !Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000) return undefined;
  return { list: false, filter, batchSize };
}

function age(seconds: number): string {
  const units: Array<[string, number]> = [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
    ['s', 1],
  ];
  const parts: string[] = [];
  let rest = Math.floor(seconds);
  for (const [unit, size] of units) {
    if (rest >= size || (unit === 's' && parts.length === 0)) parts.push(`${Math.floor(rest / size)}${unit}`);
    rest %= size;
  }
  return parts.slice(0, 2).join(' ');
}

function describe(delivery: ParkedDelivery): string {
  return `${delivery.listener}  ${delivery.eventName}  outbox id ${delivery.outboxId}  event id ${delivery.eventId}  ${delivery.attempts} attempts  ${age(delivery.ageSeconds)} old  last error: ${delivery.lastError ?? '(none)'}`;
}

async function main(): Promise<number> {
  const command = parse();
  if (command === undefined) {
    console.error(usage);
    return EXIT_USAGE;
  }
  const config = loadConfigOrExit();
  const database = await openDatabase(config, createLogger({ level: config.logLevel, service: 'outbox' }), createMetricsRegistry('outbox'));
  try {
    if (command.list) {
      const parked = await listParkedDeliveries(database.pool, command.filter);
      for (const delivery of parked) console.log(describe(delivery));
      console.log(`${parked.length} parked deliveries`);
      return 0;
    }
    const replayed = await replayParkedDeliveries(database.pool, command.filter, {
      batchSize: command.batchSize,
      onProgress: ({ replayed: done, left }) => console.log(`${done} deliveries replayed, ${left} left`),
    });
    console.log(`${replayed} parked deliveries replayed: the outbox dispatcher runs them again; \`list\` shows any parked again`);
    return 0;
  } finally {
    await database.close();
  }
}

await runCommand(main);
