// Behind `npm run money:audit`: checks the books' invariants on the database at DATABASE_URL (docs/money.md § Invariants and the audit).
import { ConfigError, createLogger, createMetricsRegistry, EXIT_USAGE, loadConfigOrExit, openDatabase, runCommand } from '@shop/platform';
import { auditMoney, failedChecks, formatMoneyAudit } from './money-audit.ts';

const usage = `usage: money-audit-cli.ts   run every money check on DATABASE_URL's books; exit 1 when any finds offending rows (printed with their ids)`;

async function main(): Promise<number> {
  if (process.argv.length > 2) {
    console.error(usage);
    return EXIT_USAGE;
  }
  const config = loadConfigOrExit();
  // Without it the platform would open the embedded database: an audit of nothing.
  if (config.databaseUrl === undefined) throw new ConfigError(['DATABASE_URL: is required (the database whose books are audited)']);
  const database = await openDatabase(
    config,
    createLogger({ level: config.logLevel, service: 'money-audit' }),
    createMetricsRegistry('money-audit'),
  );
  try {
    // One snapshot for every check: a refund settling between two checks must not look like a broken invariant.
    const results = await database.prisma.$transaction((tx) => auditMoney(tx), {
      isolationLevel: 'RepeatableRead',
      timeout: 600_000,
      maxWait: 10_000,
    });
    console.log(formatMoneyAudit(results));
    return failedChecks(results).length === 0 ? 0 : 1;
  } finally {
    await database.close();
  }
}

await runCommand(main);
