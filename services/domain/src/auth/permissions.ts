import { DomainError, LIMITS, requireText, type Tx } from '../kernel/index.ts';
import type { Principal } from './principal.ts';

export interface PermissionDeclaration {
  readonly name: string;
  readonly description: string;
}

/** The permissions the core declares; the api upserts them at boot. Extensions declare theirs under their own source. */
export const CORE_PERMISSIONS = [
  { name: 'catalog.read', description: 'See products, categories, brands and channels in the admin' },
  { name: 'catalog.write', description: 'Create, change and delete products, categories and brands; create channels' },
  { name: 'inventory.read', description: 'See stock levels and reservations' },
  { name: 'inventory.write', description: 'Change stock levels and stock locations' },
  { name: 'orders.read', description: 'See orders' },
  { name: 'orders.manage', description: 'Approve, fulfil, complete and cancel orders; change their addresses' },
  { name: 'customers.read', description: 'See customer accounts and groups' },
  { name: 'customers.manage', description: 'Change customer accounts and groups; approve or reject business accounts' },
  { name: 'store_credit.issue', description: "Credit a customer's store credit account" },
  { name: 'returns.manage', description: 'Create, submit, receive and cancel returns (RMAs) of any order' },
  { name: 'payments.refund', description: 'Refund orders: request a refund, retry a failed one or send it to store credit' },
  { name: 'leads.read', description: 'See captured leads' },
  { name: 'reports.read', description: 'See the tracking and attribution reports' },
  { name: 'settings.manage', description: 'Change the shop settings' },
  {
    name: 'secrets.manage',
    description: 'Set stored secrets (gateway credentials, webhook secrets) and see whether each is set; never their values',
  },
  { name: 'staff.manage', description: 'Create staff users and assign their roles' },
  {
    name: 'storefront_tokens.manage',
    description: 'Create, list and revoke the storefront access tokens BFFs send (never shown again after creation)',
  },
  { name: 'workflows.read', description: 'See workflow faults: the assumptions of order, approval and sweep workflows that proved false' },
] as const satisfies readonly PermissionDeclaration[];

export type CorePermission = (typeof CORE_PERMISSIONS)[number]['name'];

/** Holds every declared permission: upsertPermissions grants it each new one. */
export const ADMIN_ROLE = 'admin';

/** `area.action`, lower case, e.g. `orders.manage` or `loyalty.points_adjust`. */
const PERMISSION_NAME = /^[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)+$/;

function validated(declared: readonly PermissionDeclaration[]): PermissionDeclaration[] {
  const seen = new Set<string>();
  return declared.map(({ name, description }) => {
    if (!PERMISSION_NAME.test(name) || name.length > LIMITS.permissionName.max) {
      throw new DomainError(
        'BAD_USER_INPUT',
        `permission name ${JSON.stringify(name)} must look like area.action (lower case), at most ${LIMITS.permissionName.max} characters`,
        { permission: name },
      );
    }
    if (seen.has(name)) throw new DomainError('BAD_USER_INPUT', `permission ${name} is declared twice`, { permission: name });
    seen.add(name);
    return { name, description: requireText('description', description, LIMITS.permissionDescription) };
  });
}

/**
 * Makes the permissions table hold the declared permissions: new ones are inserted (and granted to
 * the admin role, when it exists), changed descriptions updated, the rest left as they are, so a
 * second run changes nothing. A name another source already declared is refused as CONFLICT.
 * Permissions no longer declared are kept: deleting one would silently drop it from every role.
 */
export async function upsertPermissions(
  tx: Tx,
  declared: readonly PermissionDeclaration[],
  source = 'core',
): Promise<{ created: string[]; updated: string[] }> {
  const wanted = validated(declared);
  const owner = requireText('source', source, LIMITS.permissionSource);
  const existing = new Map((await tx.permission.findMany({ where: { name: { in: wanted.map((p) => p.name) } } })).map((p) => [p.name, p]));

  const clash = wanted.find((p) => (existing.get(p.name)?.source ?? owner) !== owner);
  if (clash !== undefined) {
    const other = existing.get(clash.name)?.source;
    throw new DomainError('CONFLICT', `permission ${clash.name} is already declared by ${other}`, {
      permission: clash.name,
      source: other,
    });
  }

  const created = wanted.filter((p) => !existing.has(p.name));
  const updated = wanted.filter((p) => existing.has(p.name) && existing.get(p.name)?.description !== p.description);
  // skipDuplicates: api instances booting together may insert the same rows.
  await tx.permission.createMany({ data: created.map((p) => ({ ...p, source: owner })), skipDuplicates: true });
  for (const p of updated) await tx.permission.update({ where: { name: p.name }, data: { description: p.description } });

  const admin = await tx.role.findUnique({ where: { name: ADMIN_ROLE }, select: { id: true } });
  if (admin !== null && created.length > 0) {
    await tx.rolePermission.createMany({ data: created.map((p) => ({ roleId: admin.id, permission: p.name })), skipDuplicates: true });
  }
  return { created: created.map((p) => p.name), updated: updated.map((p) => p.name) };
}

/** Grants through any role of the user count; an inactive user holds none. */
const grantedTo = (staffUserId: bigint) => ({ role: { staff: { some: { staffUserId, staffUser: { active: true } } } } });

/** Whether one of the active staff user's roles grants the permission. */
export async function holdsPermission(tx: Tx, staffUserId: bigint, permission: string): Promise<boolean> {
  return (await tx.rolePermission.count({ where: { permission, ...grantedTo(staffUserId) } })) > 0;
}

/** Throws FORBIDDEN `missing permission <name>` unless one of the staff user's roles grants it. */
export async function requirePermission(tx: Tx, staffUserId: bigint, permission: string): Promise<void> {
  if (!(await holdsPermission(tx, staffUserId, permission)))
    throw new DomainError('FORBIDDEN', `missing permission ${permission}`, { permission });
}

/**
 * For the api's admin operations: UNAUTHENTICATED without a principal, FORBIDDEN for a customer or
 * a staff user lacking the permission; otherwise the staff user's id.
 */
export async function authorizeStaff(tx: Tx, principal: Principal | null | undefined, permission: string): Promise<bigint> {
  if (principal == null) throw new DomainError('UNAUTHENTICATED', 'sign in as staff to do this');
  if (principal.kind !== 'staff') throw new DomainError('FORBIDDEN', `missing permission ${permission}`, { permission });
  await requirePermission(tx, principal.staffUserId, permission);
  return principal.staffUserId;
}

/** The names of every permission the staff user holds, sorted. */
export async function permissionsOf(tx: Tx, staffUserId: bigint): Promise<string[]> {
  const rows = await tx.rolePermission.findMany({
    where: grantedTo(staffUserId),
    select: { permission: true },
    distinct: ['permission'],
    orderBy: { permission: 'asc' },
  });
  return rows.map((row) => row.permission);
}
