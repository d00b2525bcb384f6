import type { Prisma } from '@shop/platform';
import { DomainError, isUniqueViolation, LIMITS, requireText, type Tx } from '../kernel/index.ts';
import { assertPasswordPolicy, checkPassword, hashPassword, normalizeEmail, upgradedHash } from '../accounts/index.ts';
import { ADMIN_ROLE, CORE_PERMISSIONS, permissionsOf, upsertPermissions } from './permissions.ts';
import { ensureRole } from './roles.ts';

const WITHOUT_SECRETS = { passwordHash: true } as const satisfies Prisma.StaffUserOmit;

/** A staff user as the rest of the system sees it: never its password hash. */
export type StaffAccount = Prisma.StaffUserGetPayload<{ omit: typeof WITHOUT_SECRETS }>;

export interface CreateStaffUserInput {
  readonly email: string;
  readonly password: string;
  readonly name: string;
  /** Names of existing roles; NOT_FOUND names the first that does not exist. */
  readonly roles?: readonly string[];
}

const duplicateEmail = () => new DomainError('CONFLICT', 'a staff user with this email already exists', { field: 'email' });

export async function createStaffUser(tx: Tx, input: CreateStaffUserInput): Promise<StaffAccount> {
  const email = normalizeEmail(input.email);
  assertPasswordPolicy(input.password);
  const name = requireText('name', input.name, LIMITS.staffName);
  const roleNames = [...new Set(input.roles ?? [])];
  const roles = await tx.role.findMany({ where: { name: { in: roleNames } }, select: { id: true, name: true } });
  const unknown = roleNames.find((roleName) => !roles.some((role) => role.name === roleName));
  if (unknown !== undefined) throw new DomainError('NOT_FOUND', `role ${unknown} does not exist`, { role: unknown });
  if ((await tx.staffUser.count({ where: { email } })) > 0) throw duplicateEmail();

  const passwordHash = await hashPassword(input.password);
  try {
    return await tx.staffUser.create({
      data: { email, passwordHash, name, roles: { create: roles.map((role) => ({ roleId: role.id })) } },
      omit: WITHOUT_SECRETS,
    });
  } catch (error) {
    throw isUniqueViolation(error) ? duplicateEmail() : error;
  }
}

/**
 * The staff user whose email and password match. Unknown email and wrong password share one
 * message and the same scrypt work; a deactivated account is only named after a correct password.
 */
export async function authenticateStaff(tx: Tx, email: string, password: string): Promise<StaffAccount> {
  const found = await tx.staffUser.findUnique({ where: { email: email.trim().toLowerCase() } });
  const matches = await checkPassword(password, found?.passwordHash);
  if (found === null || !matches) throw new DomainError('UNAUTHENTICATED', 'invalid email or password');
  if (!found.active) throw new DomainError('UNAUTHENTICATED', 'this staff account is deactivated');
  const upgraded = await upgradedHash(password, found.passwordHash);
  if (upgraded !== undefined) await tx.staffUser.update({ where: { id: found.id }, data: { passwordHash: upgraded } });
  const { passwordHash: _, ...account } = found;
  return account;
}

/**
 * For the seed: declares the core permissions, makes the `admin` role hold every declared
 * permission, and creates the user with that role when no staff user has the email (an existing
 * one keeps its password and is given the role). Running it again changes nothing.
 */
export async function ensureAdmin(
  tx: Tx,
  input: { email: string; password: string; name: string },
): Promise<{ staffUser: StaffAccount; created: boolean }> {
  await upsertPermissions(tx, CORE_PERMISSIONS);
  const everything = await tx.permission.findMany({ select: { name: true } });
  const admin = await ensureRole(tx, { name: ADMIN_ROLE, description: 'Every permission', permissions: everything.map((p) => p.name) });

  const existing = await tx.staffUser.findUnique({ where: { email: normalizeEmail(input.email) }, omit: WITHOUT_SECRETS });
  if (existing === null) return { staffUser: await createStaffUser(tx, { ...input, roles: [ADMIN_ROLE] }), created: true };
  await tx.staffRole.createMany({ data: [{ staffUserId: existing.id, roleId: admin.id }], skipDuplicates: true });
  return { staffUser: existing, created: false };
}

/** Whether the staff user behind a token still exists and is active: a token outlives its user's deactivation until it expires. */
export async function isActiveStaff(db: Tx, staffUserId: bigint): Promise<boolean> {
  return (await db.staffUser.count({ where: { id: staffUserId, active: true } })) > 0;
}

/** The account behind a staff token with every permission its roles grant; UNAUTHENTICATED once deleted or deactivated. */
export async function signedInStaff(db: Tx, staffUserId: bigint): Promise<{ staff: StaffAccount; permissions: string[] }> {
  const staff = await db.staffUser.findUnique({ where: { id: staffUserId }, omit: WITHOUT_SECRETS });
  if (staff === null || !staff.active) throw new DomainError('UNAUTHENTICATED', 'this staff account can no longer sign in');
  return { staff, permissions: await permissionsOf(db, staffUserId) };
}
