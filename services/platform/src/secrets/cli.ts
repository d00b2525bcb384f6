// Behind `npm run secrets:rewrap` and `npm run secrets:status`: see docs/secrets.md.
import { parseArgs } from 'node:util';
import { ConfigError, createLogger, exitWithConfigProblems } from '@shop/runtime';
import { loadConfigOrExit } from '../config/config.ts';
import { openDatabase } from '../db/database.ts';
import { createMetricsRegistry } from '../metrics/registry.ts';
import { keyringOf } from './keyring.ts';
import { rewrapSecrets } from './rewrap.ts';
import { rowsPerKeyId } from './rows-per-key.ts';
import { statusReport } from './status-report.ts';

const usage = `usage: cli.ts status                      rows of stored secrets per master key id
       cli.ts rewrap [--batch-size=500]   re-encrypt every row not under SECRETS_MASTER_KEY`;
const EXIT_USAGE = 64;

const { positionals, values } = parseArgs({ allowPositionals: true, options: { 'batch-size': { type: 'string', default: '500' } } });
const [command, ...extra] = positionals;
const batchSize = Number(values['batch-size']);
if ((command !== 'status' && command !== 'rewrap') || extra.length > 0 || !Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000) {
  console.error(usage);
  process.exit(EXIT_USAGE);
}

const config = loadConfigOrExit();
const logger = createLogger({ level: config.logLevel, service: 'secrets' });
const keyring = keyringOf(config);
const database = await openDatabase(config, logger, createMetricsRegistry('secrets'));
try {
  if (command === 'status') {
    for (const line of statusReport(await rowsPerKeyId(database.pool), keyring)) console.log(line);
  } else {
    console.log(`rewrapping stored secrets to key id ${keyring.current.id} in batches of ${batchSize}`);
    const result = await rewrapSecrets(database.pool, keyring, {
      batchSize,
      onProgress: ({ done, left, rowsPerSecond }) => console.log(`${done} rows rewrapped, ${left} left, ${Math.round(rowsPerSecond)} rows/s`),
    }).catch((error: unknown) => (error instanceof ConfigError ? exitWithConfigProblems(error.problems) : Promise.reject(error)));
    console.log(`${result.rewrapped} rows rewrapped in ${result.seconds.toFixed(1)} s; ${result.changedMeanwhile} were written anew meanwhile and kept`);
    if (result.left > 0) {
      console.error(`${result.left} rows are still under other keys (written meanwhile by a process with an older SECRETS_MASTER_KEY); run it again`);
      process.exitCode = 1;
    }
  }
} finally {
  await database.close();
}
