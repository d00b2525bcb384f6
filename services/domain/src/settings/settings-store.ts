import type { Prisma } from '@shop/platform';
import { DomainError, LIMITS, type Tx } from '../kernel/index.ts';
import { CHECKOUT_SETTINGS_KEY } from './checkout-settings.ts';
import { WORKFLOW_SETTINGS_KEY } from './workflow-settings.ts';

const KEY = /^[a-z][a-zA-Z0-9_.-]*$/;
export const SETTING_MAX_BYTES = 64 * 1024;
/** The prefix of extensionSettingKey's keys. */
const EXTENSION_KEYS = 'ext.';

type Check = (value: unknown) => boolean;

const wholeNumber =
  (min: number, max: number): Check =>
  (value) =>
    Number.isInteger(value) && (value as number) >= min && (value as number) <= max;
const amount: Check = (value) => typeof value === 'string' && /^\d{1,10}(\.\d{1,2})?$/.test(value);
const rate: Check = (value) => typeof value === 'string' && /^(0(\.\d{1,4})?|1(\.0{1,4})?)$/.test(value);
const boolean: Check = (value) => typeof value === 'boolean';
const orNull =
  (check: Check): Check =>
  (value) =>
    value === null || check(value);

const FRAUD: Record<string, [Check, string]> = {
  orderTotalAbove: [orNull(amount), 'an amount such as "2000.00", or null to switch the rule off'],
  maxOrdersPerCustomerPerHour: [orNull(wholeNumber(1, 10_000)), 'a whole number from 1 to 10000, or null to switch the rule off'],
  countryMismatch: [boolean, 'true or false'],
};

const CHECKOUT: Record<string, [Check, string]> = {
  taxRate: [rate, 'a rate from "0" to "1" with at most four decimals, e.g. "0.19"'],
  shippingFlatRate: [amount, 'an amount such as "4.90"'],
  paymentWindowMinutes: [wholeNumber(1, 7 * 24 * 60), 'a whole number of minutes from 1 to 10080'],
  approvalWindowHours: [wholeNumber(1, 24 * 365), 'a whole number of hours from 1 to 8760'],
  businessOrdersNeedApproval: [boolean, 'true or false'],
  cartLifetimeDays: [wholeNumber(1, 365), 'a whole number of days from 1 to 365'],
};

/** Hours of a workflow timer: fractions allowed, from about a second to a year. */
const hours: Check = (value) => typeof value === 'number' && Number.isFinite(value) && value >= 0.0003 && value <= 24 * 365;
const HOURS = 'a number of hours from 0.0003 (about a second) to 8760, fractions allowed';
/** Minutes a card authorization may wait for its order: less than the authorization's 7 days, so the void still reaches it. */
const cartTenderMinutes: Check = (value) => typeof value === 'number' && Number.isFinite(value) && value >= 0.02 && value <= 6 * 24 * 60;

const WORKFLOWS: Record<string, [Check, string]> = {
  fulfilmentWindowHours: [hours, HOURS],
  orderApprovalReminderHours: [hours, HOURS],
  customerApprovalReminderHours: [hours, HOURS],
  customerApprovalExpiryHours: [hours, HOURS],
  cardAuthorizationVoidMarginHours: [hours, HOURS],
  rmaDraftLifetimeHours: [hours, HOURS],
  pendingRefundPollHours: [hours, HOURS],
  returnReceiptWindowHours: [hours, HOURS],
  refundClawbackOverdraftHours: [hours, HOURS],
  cartTenderIdleMinutes: [
    cartTenderMinutes,
    "a number of minutes from 0.02 (about a second) to 8640 (6 days, within a card authorization's 7), fractions allowed",
  ],
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function checkFields(
  value: unknown,
  rules: Record<string, [Check, string]>,
  path: string,
  nested: Record<string, (value: unknown, path: string) => void> = {},
): void {
  if (!isObject(value)) throw new DomainError('BAD_USER_INPUT', `${path} must be an object`, { field: path });
  for (const [name, field] of Object.entries(value)) {
    const at = `${path}.${name}`;
    const check = nested[name];
    if (check !== undefined) {
      check(field, at);
      continue;
    }
    const rule = rules[name];
    if (rule === undefined) {
      const known = [...Object.keys(rules), ...Object.keys(nested)].join(', ');
      throw new DomainError('BAD_USER_INPUT', `${at} is not a setting; known: ${known}`, { field: at });
    }
    if (!rule[0](field)) throw new DomainError('BAD_USER_INPUT', `${at} must be ${rule[1]}`, { field: at });
  }
}

/**
 * Refuses what would break a reader later: a bad key, a value over 64 KiB, and for `checkout` and
 * `workflows` anything but their settings with values of their type (checkout reads them on every
 * order, the workflows set their timers from them).
 */
function validSetting(key: string, value: unknown): { key: string; value: unknown } {
  if (!KEY.test(key) || key.length > LIMITS.settingKey.max) {
    throw new DomainError(
      'BAD_USER_INPUT',
      `key must start with a lower-case letter and hold letters, digits, "_", "." or "-", at most ${LIMITS.settingKey.max} characters`,
      { field: 'key' },
    );
  }
  // Checked against the extension's declared type there, never stored unchecked here.
  if (key.startsWith(EXTENSION_KEYS))
    throw new DomainError(
      'BAD_USER_INPUT',
      `keys starting with "${EXTENSION_KEYS}" are extension settings: set them with setExtensionSetting`,
      { field: 'key' },
    );
  if (value === null || value === undefined) throw new DomainError('BAD_USER_INPUT', 'value must not be null', { field: 'value' });
  if (Buffer.byteLength(JSON.stringify(value)) > SETTING_MAX_BYTES) {
    throw new DomainError('BAD_USER_INPUT', `value must be at most ${SETTING_MAX_BYTES} bytes of JSON`, { field: 'value' });
  }
  if (key === CHECKOUT_SETTINGS_KEY) checkFields(value, CHECKOUT, 'value', { fraud: (fraud, path) => checkFields(fraud, FRAUD, path) });
  if (key === WORKFLOW_SETTINGS_KEY) checkFields(value, WORKFLOWS, 'value');
  return { key, value };
}

/** The stored value of a setting, null when unset. */
export async function readSetting(tx: Tx, key: string): Promise<Prisma.JsonValue> {
  return (await tx.setting.findUnique({ where: { key } }))?.value ?? null;
}

/** Stores a valid value (see validSetting) and returns it as stored. */
export async function storeSetting(tx: Tx, key: string, value: unknown): Promise<Prisma.JsonValue> {
  const valid = validSetting(key, value);
  const json = valid.value as Prisma.InputJsonValue;
  return (await tx.setting.upsert({ where: { key }, create: { key, value: json }, update: { value: json } })).value;
}
