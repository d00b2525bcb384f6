import { DomainError } from './domain-error.ts';
import { exponentOf, fitsCurrency, money, moneyString, type Money } from './money.ts';

/**
 * The most characters a text field takes, and the columns (table.column, as in prisma/schema/*.prisma)
 * it is stored in. `narrower` says why `max` is below a column's width (or the column is unbounded
 * text); without it they are equal. services/domain/test/kernel/validation-limits.test.ts holds both to the
 * schema.
 */
export interface Limit {
  readonly max: number;
  readonly columns: readonly [string, ...string[]];
  readonly narrower?: string;
}

export const LIMITS = {
  channelCode: { max: 50, columns: ['channels.code'] },
  channelName: { max: 200, columns: ['channels.name'] },
  brandName: { max: 200, columns: ['brands.name'] },
  brandSlug: { max: 200, columns: ['brands.slug'] },
  categoryName: { max: 200, columns: ['categories.name'] },
  categorySlug: { max: 200, columns: ['categories.slug'] },
  productSku: { max: 100, columns: ['products.sku', 'order_lines.sku'] },
  productName: { max: 300, columns: ['products.name', 'order_lines.product_name'] },
  productSlug: { max: 300, columns: ['products.slug'] },
  productDescription: {
    max: 10_000,
    columns: ['products.description'],
    narrower: 'the column is unbounded text: this bounds what one request stores',
  },
  stockLocationName: { max: 200, columns: ['stock_locations.name'] },
  email: { max: 320, columns: ['customers.email', 'staff_users.email', 'leads.email', 'orders.email'] },
  customerName: { max: 100, columns: ['customers.first_name', 'customers.last_name'] },
  leadName: { max: 200, columns: ['leads.name'] },
  leadSource: { max: 100, columns: ['leads.source'] },
  staffName: { max: 200, columns: ['staff_users.name'] },
  roleName: { max: 100, columns: ['roles.name'] },
  roleDescription: { max: 500, columns: ['roles.description'] },
  permissionName: { max: 100, columns: ['permissions.name', 'role_permissions.permission'] },
  permissionDescription: { max: 500, columns: ['permissions.description'] },
  permissionSource: { max: 100, columns: ['permissions.source'] },
  storefrontTokenName: { max: 200, columns: ['storefront_tokens.name'] },
  settingKey: { max: 200, columns: ['settings.key'] },
  secretKey: { max: 200, columns: ['stored_secrets.key'] },
  orderIdempotencyKey: { max: 200, columns: ['orders.idempotency_key'] },
  cancelReason: { max: 500, columns: ['orders.cancel_reason'] },
  returnReason: { max: 500, columns: ['return_authorizations.reason'] },
  refundReason: { max: 500, columns: ['refund_requests.reason'] },
  storeCreditNote: { max: 500, columns: ['store_credit_entries.note'] },
  /** The key a client sends to make a money movement safe to retry. */
  idempotencyKey: {
    max: 255,
    columns: ['store_credit_entries.idempotency_key', 'return_receipts.idempotency_key', 'refund_requests.idempotency_key'],
  },
  /** The tracking texts are cut to these rather than refused (tracking/tracking-events.ts). */
  trackingSessionId: { max: 255, columns: ['tracking_events.session_id'] },
  trackingIpAddress: { max: 45, columns: ['tracking_events.ip_address'] },
  trackingUserAgent: { max: 500, columns: ['tracking_events.user_agent'] },
  trackingPageUrl: { max: 500, columns: ['tracking_events.page_url'] },
  trackingReferrerUrl: { max: 500, columns: ['tracking_events.referrer_url'] },
} as const satisfies Record<string, Limit>;

/**
 * Text as it is stored: trimmed; null when absent or blank. BAD_USER_INPUT naming the field when it
 * holds the NUL character (PostgreSQL text cannot), or is longer than the limit in characters
 * (code points, as VarChar counts them).
 */
export function optionalText(field: string, value: string | null | undefined, limit: Limit): string | null {
  if (value?.includes('\u0000')) throw new DomainError('BAD_USER_INPUT', `${field} must not contain the NUL character (U+0000)`, { field });
  const trimmed = value?.trim() ?? '';
  if ([...trimmed].length > limit.max)
    throw new DomainError('BAD_USER_INPUT', `${field} must be at most ${limit.max} characters`, { field });
  return trimmed === '' ? null : trimmed;
}

/** As optionalText, and BAD_USER_INPUT naming the field when blank. */
export function requireText(field: string, value: string, limit: Limit): string {
  const text = optionalText(field, value, limit);
  if (text === null) throw new DomainError('BAD_USER_INPUT', `${field} must not be empty`, { field });
  return text;
}

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export function requireSlug(value: string, limit: Limit): string {
  const slug = requireText('slug', value, limit);
  if (!SLUG.test(slug))
    throw new DomainError('BAD_USER_INPUT', 'slug must be lower-case words joined by hyphens, e.g. black-tee', { field: 'slug' });
  return slug;
}

/** A product's description, trimmed; empty when absent or blank. */
export function requireDescription(value: string): string {
  return optionalText('description', value, LIMITS.productDescription) ?? '';
}

const CURRENCY = /^[A-Z]{3}$/;
/** The most decimals an amount column holds (Decimal(13, 3), prisma/schema/). */
const STORED_DECIMALS = 3;

export function requireCurrency(value: string): string {
  if (!CURRENCY.test(value))
    throw new DomainError('BAD_USER_INPUT', 'currency must be an ISO 4217 code such as EUR', { field: 'currency' });
  if (exponentOf(value) > STORED_DECIMALS) {
    throw new DomainError(
      'BAD_USER_INPUT',
      `currency ${value} has ${exponentOf(value)} decimals; the shop stores amounts with at most ${STORED_DECIMALS}`,
      { field: 'currency' },
    );
  }
  return value;
}

/**
 * A non-negative amount given in a currency, with at most as many decimals as the currency has
 * (none for JPY, 3 for KWD): BAD_USER_INPUT naming the field and the currency otherwise.
 */
export function requireAmount(field: string, value: string, currency: string): Money {
  if (!/^\d{1,10}(\.\d+)?$/.test(value) || !fitsCurrency(money(value), currency)) {
    const decimals = exponentOf(currency) === 0 ? 'no decimals' : `at most ${exponentOf(currency)} decimals`;
    throw new DomainError(
      'BAD_USER_INPUT',
      `${field} must be an amount in ${currency} with ${decimals}, e.g. "${moneyString(money('19.9'), currency)}", not ${JSON.stringify(value)}`,
      {
        field,
      },
    );
  }
  return money(value);
}

/** As requireAmount for the field `amount`, and BAD_USER_INPUT when it is zero. */
export function requirePositiveAmount(value: string, currency: string): Money {
  const checked = requireAmount('amount', value, currency);
  if (checked.lte(0))
    throw new DomainError('BAD_USER_INPUT', `the amount must be positive, not ${JSON.stringify(value)}`, { field: 'amount' });
  return checked;
}

export function requirePrice(value: string, currency: string): string {
  return moneyString(requireAmount('price', value, currency), currency);
}
