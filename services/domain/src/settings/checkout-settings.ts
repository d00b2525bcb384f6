import { money, type Money, type Tx } from '../kernel/index.ts';

/** Rules that trip a fraud check on an order; each can be switched off by setting it to null. */
export interface FraudRules {
  /** An order total above this (in the order's currency) is checked. */
  readonly orderTotalAbove: string | null;
  /** More orders than this from one customer within an hour are checked. */
  readonly maxOrdersPerCustomerPerHour: number | null;
  /** A billing country different from the shipping country is checked. */
  readonly countryMismatch: boolean;
}

export interface CheckoutSettings {
  /** Applied to the subtotal plus shipping, e.g. 0.19. */
  readonly taxRate: Money;
  readonly shippingFlatRate: Money;
  /** How long checkout holds stock for an order awaiting payment. */
  readonly paymentWindowMinutes: number;
  /** How long stock stays held for a business order awaiting approval. */
  readonly approvalWindowHours: number;
  /** Business customers' orders wait in AWAITING_APPROVAL until staff approve them. */
  readonly businessOrdersNeedApproval: boolean;
  /** Guest and customer carts expire after this many days without a change. */
  readonly cartLifetimeDays: number;
  readonly fraud: FraudRules;
}

export const DEFAULT_CHECKOUT_SETTINGS: CheckoutSettings = {
  taxRate: money(0),
  shippingFlatRate: money(0),
  paymentWindowMinutes: 30,
  approvalWindowHours: 72,
  businessOrdersNeedApproval: true,
  cartLifetimeDays: 14,
  fraud: { orderTotalAbove: '2000.00', maxOrdersPerCustomerPerHour: 5, countryMismatch: true },
};

/** The settings key holding overrides of the defaults above (a partial object, camelCase keys). */
export const CHECKOUT_SETTINGS_KEY = 'checkout';

interface StoredCheckoutSettings extends Partial<Omit<CheckoutSettings, 'taxRate' | 'shippingFlatRate' | 'fraud'>> {
  readonly taxRate?: string;
  readonly shippingFlatRate?: string;
  readonly fraud?: Partial<FraudRules>;
}

export async function checkoutSettings(tx: Tx): Promise<CheckoutSettings> {
  const row = await tx.setting.findUnique({ where: { key: CHECKOUT_SETTINGS_KEY } });
  const stored = (row?.value ?? {}) as StoredCheckoutSettings;
  return {
    ...DEFAULT_CHECKOUT_SETTINGS,
    ...stored,
    taxRate: stored.taxRate === undefined ? DEFAULT_CHECKOUT_SETTINGS.taxRate : money(stored.taxRate),
    shippingFlatRate: stored.shippingFlatRate === undefined ? DEFAULT_CHECKOUT_SETTINGS.shippingFlatRate : money(stored.shippingFlatRate),
    fraud: { ...DEFAULT_CHECKOUT_SETTINGS.fraud, ...stored.fraud },
  };
}
