import type { Emit } from '../outbox/emit.ts';
import { openPaymentGateway } from '../payments/gateway-provider.ts';
import type { Platform } from '../platform.ts';

/**
 * What every process hands the domain's operations besides their transaction (`DomainDeps` in
 * @shop/domain): the outbox's emit, the wall clock, and the payment gateway the configuration chooses among
 * the registered providers (none configured: card payments are refused). Tests build their own, with a clock of theirs.
 */
export function domainDeps(platform: Pick<Platform, 'config' | 'database' | 'masterKeys'>, emit: Emit) {
  return {
    emit,
    now: () => new Date(),
    gateway: openPaymentGateway({ config: platform.config, db: platform.database.prisma, masterKeys: platform.masterKeys }),
  };
}
