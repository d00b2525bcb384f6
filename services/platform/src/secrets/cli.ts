// Behind `npm run secrets:rewrap` and `npm run secrets:status`: see docs/secrets.md.
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { createLogger, EXIT_USAGE, formatRewrapSummary, runCommand } from '@shop/runtime';
import { loadConfigOrExit } from '../config/config.ts';
import { openDatabase, type Database } from '../db/database.ts';
import { createMetricsRegistry } from '../metrics/registry.ts';
import { keyringOf, type MasterKeyring } from './keyring.ts';
import { rewrapSecrets } from './rewrap.ts';
import { rowsPerKeyId } from './rows-per-key.ts';
import { statusReport } from './status-report.ts';

const usage = `usage: cli.ts status   rows of stored secrets per master key id
       cli.ts rewrap [--batch-size=500] [--rows-per-second=N] [--summary-file=PATH]
                re-encrypt every row not under SECRETS_MASTER_KEY, at most N rows a second
                (default SECRETS_REWRAP_ROWS_PER_SECOND; 0: unpaced), and write the rows per
                key id at the end to PATH as JSON (the operator's Job: /dev/termination-log)`;

async function status(database: Database, keyring: MasterKeyring): Promise<number> {
  for (const line of statusReport(await rowsPerKeyId(database.pool), keyring)) console.log(line);
  return 0;
}

interface RewrapArguments {
  readonly batchSize: number;
  readonly rowsPerSecond: number;
  readonly summaryFile: string | undefined;
}

async function rewrap(
  database: Database,
  keyring: MasterKeyring,
  { batchSize, rowsPerSecond, summaryFile }: RewrapArguments,
): Promise<number> {
  const pace = rowsPerSecond === 0 ? 'unpaced' : `at most ${rowsPerSecond} rows/s`;
  console.log(`rewrapping stored secrets to key id ${keyring.current.id} in batches of ${batchSize}, ${pace}`);
  const result = await rewrapSecrets(database.pool, keyring, {
    batchSize,
    rowsPerSecond,
    onProgress: ({ done, left, rowsPerSecond: rate }) => console.log(`${done} rows rewrapped, ${left} left, ${Math.round(rate)} rows/s`),
  });
  console.log(
    `${result.rewrapped} rows rewrapped in ${result.seconds.toFixed(1)} s; ${result.changedMeanwhile} were written anew meanwhile and kept`,
  );
  if (summaryFile !== undefined) await writeFile(summaryFile, formatRewrapSummary(result.rowsPerKeyId, new Date()));
  if (result.left === 0) return 0;
  console.error(
    `${result.left} rows are still under other keys (written meanwhile by a process with an older SECRETS_MASTER_KEY); run it again`,
  );
  return 1;
}

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      'batch-size': { type: 'string', default: '500' },
      'rows-per-second': { type: 'string' },
      'summary-file': { type: 'string' },
    },
  });
  const [command, ...extra] = positionals;
  const batchSize = Number(values['batch-size']);
  const rowsPerSecond = values['rows-per-second'] === undefined ? undefined : Number(values['rows-per-second']);
  const badPace = rowsPerSecond !== undefined && (!Number.isInteger(rowsPerSecond) || rowsPerSecond < 0 || rowsPerSecond > 1_000_000);
  if (
    (command !== 'status' && command !== 'rewrap') ||
    extra.length > 0 ||
    !Number.isInteger(batchSize) ||
    batchSize < 1 ||
    batchSize > 10_000 ||
    badPace
  ) {
    console.error(usage);
    return EXIT_USAGE;
  }
  const config = loadConfigOrExit();
  const keyring = keyringOf(config);
  const database = await openDatabase(
    config,
    createLogger({ level: config.logLevel, service: 'secrets' }),
    createMetricsRegistry('secrets'),
  );
  try {
    if (command === 'status') return await status(database, keyring);
    return await rewrap(database, keyring, {
      batchSize,
      rowsPerSecond: rowsPerSecond ?? config.secretsRewrapRowsPerSecond,
      summaryFile: values['summary-file'],
    });
  } finally {
    await database.close();
  }
}

await runCommand(main);
