// A database of the test file's own, migrated, with the outbox emitting into it.
import { expect } from 'vitest';
import { startOutbox, type Platform, type PrismaClient, type RunningOutbox } from '@shop/platform';
import { openTestPlatform } from '../../../../test/support/test-platform.ts';
import type { DomainDeps } from '../../src/kernel/context.ts';
import { DomainError, type DomainErrorCode } from '../../src/kernel/domain-error.ts';

export interface AccountsTest {
  readonly prisma: PrismaClient;
  readonly platform: Platform;
  readonly outbox: RunningOutbox;
  readonly deps: DomainDeps;
  close(): Promise<void>;
}

export async function openAccountsTest(name: string): Promise<AccountsTest> {
  const test = await openTestPlatform(name);
  const { platform } = test;
  const outbox = startOutbox(platform, { idleMs: 20 });
  return {
    prisma: platform.database.prisma,
    platform,
    outbox,
    deps: { emit: outbox.emit, now: () => new Date() },
    async close() {
      await outbox.stop();
      await test.close();
    },
  };
}

let channels = 0;

export async function createChannel(prisma: PrismaClient): Promise<bigint> {
  channels += 1;
  const channel = await prisma.channel.create({ data: { code: `web-${channels}`, name: `Web ${channels}`, defaultCurrency: 'EUR' } });
  return channel.id;
}

/** Awaits the rejection and checks it is a DomainError with this code (and message, when given). */
export async function expectDomainError(promise: Promise<unknown>, code: DomainErrorCode, message?: string | RegExp): Promise<DomainError> {
  const error: unknown = await promise.then(
    () => undefined,
    (rejected: unknown) => rejected,
  );
  expect(error).toBeInstanceOf(DomainError);
  const domainError = error as DomainError;
  expect(domainError.code).toBe(code);
  if (typeof message === 'string') expect(domainError.message).toBe(message);
  else if (message !== undefined) expect(domainError.message).toMatch(message);
  return domainError;
}
