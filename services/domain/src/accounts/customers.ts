import type { BusinessApproval, Prisma } from '@shop/platform';
import { type DomainDeps, DomainError, idString, isUniqueViolation, LIMITS, optionalId, optionalText, type Tx } from '../kernel/index.ts';
import { assertChannelExists } from './channels.ts';
import { customerApprovalChanged } from './customer-approval.ts';
import { normalizeEmail } from './email.ts';
import { assertPasswordPolicy, checkPassword, hashPassword, upgradedHash } from './passwords.ts';

const WITHOUT_SECRETS = { passwordHash: true } as const satisfies Prisma.CustomerOmit;

/** A customer as the rest of the system sees it: never its password hash. */
export type CustomerAccount = Prisma.CustomerGetPayload<{ omit: typeof WITHOUT_SECRETS }>;

export interface RegisterCustomerInput {
  readonly channelId: bigint;
  readonly email: string;
  readonly password: string;
  readonly firstName?: string | null;
  readonly lastName?: string | null;
  /** Business accounts start PENDING: their orders wait for approval until staff approve the account. */
  readonly isBusiness?: boolean;
}

const INVALID_CREDENTIALS = 'invalid email or password';

const duplicateEmail = () => new DomainError('CONFLICT', 'an account with this email already exists', { field: 'email' });

/** Creates the account and emits shop.accounts.created.v1 in the same transaction. */
export async function registerCustomer(tx: Tx, deps: DomainDeps, input: RegisterCustomerInput): Promise<CustomerAccount> {
  const email = normalizeEmail(input.email);
  assertPasswordPolicy(input.password);
  const firstName = optionalText('firstName', input.firstName, LIMITS.customerName);
  const lastName = optionalText('lastName', input.lastName, LIMITS.customerName);
  const isBusiness = input.isBusiness ?? false;
  await assertChannelExists(tx, input.channelId);
  if ((await tx.customer.count({ where: { channelId: input.channelId, email } })) > 0) throw duplicateEmail();

  const passwordHash = await hashPassword(input.password);
  let customer: CustomerAccount;
  try {
    customer = await tx.customer.create({
      data: {
        channelId: input.channelId,
        email,
        passwordHash,
        firstName,
        lastName,
        isBusiness,
        approvalStatus: isBusiness ? 'PENDING' : null,
      },
      omit: WITHOUT_SECRETS,
    });
  } catch (error) {
    throw isUniqueViolation(error) ? duplicateEmail() : error;
  }

  await deps.emit(tx, 'shop.accounts.created.v1', {
    occurred_at: deps.now().toISOString(),
    customer_id: idString(customer.id),
    channel_id: idString(customer.channelId),
    email: customer.email,
    customer_group_id: optionalId(customer.customerGroupId),
    is_business: customer.isBusiness,
    approval_status: customer.approvalStatus,
  });
  if (customer.approvalStatus !== null) await customerApprovalChanged(tx, deps, { ...customer, approvalStatus: customer.approvalStatus });
  return customer;
}

/**
 * The account whose email and password match, in the channel. An unknown email and a wrong password
 * get the same UNAUTHENTICATED message, after the same scrypt work, so neither reveals the other.
 * Business accounts awaiting approval may sign in: approval gates their orders, not their login.
 */
export async function authenticateCustomer(tx: Tx, channelId: bigint, email: string, password: string): Promise<CustomerAccount> {
  const found = await tx.customer.findUnique({ where: { channelId_email: { channelId, email: email.trim().toLowerCase() } } });
  const matches = await checkPassword(password, found?.passwordHash);
  if (found === null || !matches) throw new DomainError('UNAUTHENTICATED', INVALID_CREDENTIALS);
  const upgraded = await upgradedHash(password, found.passwordHash);
  if (upgraded !== undefined) await tx.customer.update({ where: { id: found.id }, data: { passwordHash: upgraded } });
  const { passwordHash: _, ...account } = found;
  return account;
}

export function approveBusinessCustomer(tx: Tx, deps: DomainDeps, customerId: bigint): Promise<CustomerAccount> {
  return decideApproval(tx, deps, customerId, 'APPROVED');
}

export function rejectBusinessCustomer(tx: Tx, deps: DomainDeps, customerId: bigint): Promise<CustomerAccount> {
  return decideApproval(tx, deps, customerId, 'REJECTED');
}

/**
 * Staff may revise a decision either way; deciding what is already decided changes nothing. Emits
 * customer.approval_changed, which the account's approval workflow follows.
 */
async function decideApproval(tx: Tx, deps: DomainDeps, customerId: bigint, decision: BusinessApproval): Promise<CustomerAccount> {
  const customer = await tx.customer.findUnique({ where: { id: customerId }, omit: WITHOUT_SECRETS });
  if (customer === null) throw new DomainError('NOT_FOUND', `customer ${customerId} does not exist`, { customerId: idString(customerId) });
  if (!customer.isBusiness) {
    throw new DomainError('BAD_USER_INPUT', `customer ${customerId} is not a business account; only business accounts need approval`, {
      customerId: idString(customerId),
    });
  }
  if (customer.approvalStatus === decision) return customer;
  const decided = await tx.customer.update({ where: { id: customerId }, data: { approvalStatus: decision }, omit: WITHOUT_SECRETS });
  await customerApprovalChanged(tx, deps, { ...decided, approvalStatus: decision });
  return decided;
}

/** The account behind a customer's token; UNAUTHENTICATED once it was deleted. */
export async function signedInCustomer(db: Tx, customerId: bigint): Promise<CustomerAccount> {
  const customer = await db.customer.findUnique({ where: { id: customerId }, omit: WITHOUT_SECRETS });
  if (customer === null) throw new DomainError('UNAUTHENTICATED', 'this customer account no longer exists');
  return customer;
}
