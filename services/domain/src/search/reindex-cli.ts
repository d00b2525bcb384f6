// Behind `npm run search:reindex`: rebuilds the search indexes from PostgreSQL (docs/search.md).
import { parseArgs } from 'node:util';
import {
  createLogger,
  createMetricsRegistry,
  EXIT_USAGE,
  loadConfigOrExit,
  openDatabase,
  runCommand,
  searchEnginesFor,
} from '@shop/platform';
import { reindexSearch } from './reindex.ts';
import { SEARCH_INDEXES, type SearchIndexName } from './search-indexes.ts';

const usage = `usage: reindex-cli.ts [--index=admin|storefront] [--batch-size=500]   rebuild one search index, or both`;

function parse(): { indexes: SearchIndexName[]; batchSize: number } | undefined {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { index: { type: 'string' }, 'batch-size': { type: 'string', default: '500' } },
  });
  const batchSize = Number(values['batch-size']);
  const index = values.index;
  if (positionals.length > 0 || !Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000) return undefined;
  if (index === undefined) return { indexes: [...SEARCH_INDEXES], batchSize };
  return SEARCH_INDEXES.some((name) => name === index) ? { indexes: [index as SearchIndexName], batchSize } : undefined;
}

async function main(): Promise<number> {
  const options = parse();
  if (options === undefined) {
    console.error(usage);
    return EXIT_USAGE;
  }
  const config = loadConfigOrExit();
  const database = await openDatabase(config, createLogger({ level: config.logLevel, service: 'search' }), createMetricsRegistry('search'));
  try {
    const engines = searchEnginesFor(config, database.prisma);
    const engineOf = (index: SearchIndexName) => (config[`${index}Search`] === undefined ? 'PostgreSQL full text' : 'Meilisearch');
    let [rows, seconds] = [0, 0];
    for (const index of options.indexes) {
      console.log(`rebuilding the ${index} search index in ${engineOf(index)}, in batches of ${options.batchSize} rows`);
      const result = await reindexSearch(database.prisma, engines[index], {
        ...options,
        indexes: [index],
        onProgress: ({ done, left, rowsPerSecond }) =>
          console.log(`${index}: ${done} rows indexed, ${left} left, ${Math.round(rowsPerSecond)} rows/s`),
      });
      [rows, seconds] = [rows + result.rows, seconds + result.seconds];
    }
    console.log(`${rows} rows indexed in ${seconds.toFixed(1)} s`);
    return 0;
  } finally {
    await database.close();
  }
}

await runCommand(main);
