// The money audit after every money test file: the shared test support's close() runs it on the file's
// database before dropping it, so a test that leaves the books unbalanced fails its file.
import type { PrismaClient } from '@shop/platform';
import { auditMoney, failedChecks, formatMoneyAudit } from '@shop/domain/money-audit';

/** Throws the audit's report when any money check finds offending rows in `prisma`'s database. */
export async function expectBooksBalance(prisma: PrismaClient): Promise<void> {
  const results = await prisma.$transaction((tx) => auditMoney(tx), { isolationLevel: 'RepeatableRead', timeout: 60_000 });
  if (failedChecks(results).length > 0)
    throw new Error(`the money audit failed on this test file's database:\n${formatMoneyAudit(results)}`);
}

/** Audits the books, then runs `close` whatever the audit found, and throws the audit's failure last. */
export async function closeAfterAudit(prisma: PrismaClient, close: () => Promise<void>): Promise<void> {
  try {
    await expectBooksBalance(prisma);
  } finally {
    await close();
  }
}
