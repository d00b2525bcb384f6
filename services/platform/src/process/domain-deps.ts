import type { Emit } from '../outbox/emit.ts';
import { configuredGateway } from '../payments/configured-gateway.ts';
import type { Platform } from '../platform.ts';

/**
 * What every process hands the domain's operations besides their transaction (`DomainDeps` in
 * @shop/domain): the outbox's emit, the wall clock, and the payment gateway PAYMENT_GATEWAY_URL
 * configures (none without it: card payments are refused). Tests build their own, with a clock of theirs.
 */
export function domainDeps(platform: Pick<Platform, 'config' | 'database' | 'masterKeys'>, emit: Emit) {
  return { emit, now: () => new Date(), gateway: configuredGateway(platform.config.paymentGatewayUrl, platform.database.prisma, platform.masterKeys) };
}
