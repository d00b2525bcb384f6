// Behind `npm run secrets:rewrap` and `npm run secrets:status`: see docs/secrets.md.
import { parseArgs } from 'node:util';
import { createLogger, runCommand } from '@shop/runtime';
import { loadConfigOrExit } from '../config/config.ts';
import { openDatabase, type Database } from '../db/database.ts';
import { createMetricsRegistry } from '../metrics/registry.ts';
import { keyringOf, type MasterKeyring } from './keyring.ts';
import { rewrapSecrets } from './rewrap.ts';
import { rowsPerKeyId } from './rows-per-key.ts';
import { statusReport } from './status-report.ts';

const usage = `usage: cli.ts status                      rows of stored secrets per master key id
       cli.ts rewrap [--batch-size=500]   re-encrypt every row not under SECRETS_MASTER_KEY`;
// sysexits(3)
const EXIT_USAGE = 64;

async function status(database: Database, keyring: MasterKeyring): Promise<number> {
  for (const line of statusReport(await rowsPerKeyId(database.pool), keyring)) console.log(line);
  return 0;
}

async function rewrap(database: Database, keyring: MasterKeyring, batchSize: number): Promise<number> {
  console.log(`rewrapping stored secrets to key id ${keyring.current.id} in batches of ${batchSize}`);
  const result = await rewrapSecrets(database.pool, keyring, {
    batchSize,
    onProgress: ({ done, left, rowsPerSecond }) => console.log(`${done} rows rewrapped, ${left} left, ${Math.round(rowsPerSecond)} rows/s`),
  });
  console.log(`${result.rewrapped} rows rewrapped in ${result.seconds.toFixed(1)} s; ${result.changedMeanwhile} were written anew meanwhile and kept`);
  if (result.left === 0) return 0;
  console.error(`${result.left} rows are still under other keys (written meanwhile by a process with an older SECRETS_MASTER_KEY); run it again`);
  return 1;
}

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({ allowPositionals: true, options: { 'batch-size': { type: 'string', default: '500' } } });
  const [command, ...extra] = positionals;
  const batchSize = Number(values['batch-size']);
  if ((command !== 'status' && command !== 'rewrap') || extra.length > 0 || !Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000) {
    console.error(usage);
    return EXIT_USAGE;
  }
  const config = loadConfigOrExit();
  const keyring = keyringOf(config);
  const database = await openDatabase(config, createLogger({ level: config.logLevel, service: 'secrets' }), createMetricsRegistry('secrets'));
  try {
    return command === 'status' ? await status(database, keyring) : await rewrap(database, keyring, batchSize);
  } finally {
    await database.close();
  }
}

await runCommand(main);
