import { money, type Money, moneyString, type Tx } from '../kernel/index.ts';
import type { FraudRules } from '../settings/index.ts';

export interface TrippedRule {
  readonly rule: 'order_total_above' | 'orders_per_customer_hour' | 'country_mismatch';
  readonly detail: string;
}

export interface FraudFacts {
  readonly total: Money;
  readonly currency: string;
  readonly customerId: bigint | null;
  readonly billingCountry: string;
  readonly shippingCountry: string;
  readonly now: Date;
}

/** The rules an order trips; an order that trips any gets a shop.fraud.check_requested.v1. */
export async function trippedFraudRules(tx: Tx, rules: FraudRules, facts: FraudFacts): Promise<TrippedRule[]> {
  const tripped: TrippedRule[] = [];
  if (rules.orderTotalAbove !== null && facts.total.greaterThan(money(rules.orderTotalAbove))) {
    tripped.push({
      rule: 'order_total_above',
      detail: `total ${moneyString(facts.total, facts.currency)} ${facts.currency} is above the threshold ${rules.orderTotalAbove}`,
    });
  }
  if (rules.maxOrdersPerCustomerPerHour !== null && facts.customerId !== null) {
    const since = new Date(facts.now.getTime() - 60 * 60 * 1000);
    // The order being placed is already written, so it counts too.
    const recent = await tx.order.count({ where: { customerId: facts.customerId, placedAt: { gt: since } } });
    if (recent > rules.maxOrdersPerCustomerPerHour) {
      tripped.push({
        rule: 'orders_per_customer_hour',
        detail: `${recent} orders within an hour, more than ${rules.maxOrdersPerCustomerPerHour}`,
      });
    }
  }
  if (rules.countryMismatch && facts.billingCountry !== facts.shippingCountry) {
    tripped.push({
      rule: 'country_mismatch',
      detail: `billing country ${facts.billingCountry} differs from shipping country ${facts.shippingCountry}`,
    });
  }
  return tripped;
}
