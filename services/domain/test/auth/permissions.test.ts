import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_ROLE,
  CORE_PERMISSIONS,
  authorizeStaff,
  permissionsOf,
  requirePermission,
  upsertPermissions,
} from '../../src/auth/permissions.ts';
import { ensureRole } from '../../src/auth/roles.ts';
import { authenticateStaff, createStaffUser, ensureAdmin } from '../../src/auth/staff.ts';
import type { Tx } from '../../src/kernel/context.ts';
import { expectDomainError, openAccountsTest, type AccountsTest } from '../support/accounts.ts';

let t: AccountsTest;
const PASSWORD = 'correct horse battery';

beforeAll(async () => {
  t = await openAccountsTest('accounts_permissions');
});

afterAll(async () => {
  await t?.close();
});

const inTx = <T>(work: (tx: Tx) => Promise<T>): Promise<T> => t.prisma.$transaction(work);

describe('declared permissions', () => {
  it('are inserted once: a second upsert changes nothing', async () => {
    const first = await inTx((tx) => upsertPermissions(tx, CORE_PERMISSIONS));
    expect(first.created).toEqual(CORE_PERMISSIONS.map((p) => p.name));
    const rows = await t.prisma.permission.findMany({ orderBy: { name: 'asc' } });
    expect(rows.every((row) => row.source === 'core')).toBe(true);

    const second = await inTx((tx) => upsertPermissions(tx, CORE_PERMISSIONS));
    expect(second).toEqual({ created: [], updated: [] });
    expect(await t.prisma.permission.findMany({ orderBy: { name: 'asc' } })).toEqual(rows);
  });

  it('update a changed description, and an extension declares its own under its source', async () => {
    const changed = CORE_PERMISSIONS.map((p) => (p.name === 'leads.read' ? { ...p, description: 'See leads and their sources' } : p));
    expect(await inTx((tx) => upsertPermissions(tx, changed))).toEqual({ created: [], updated: ['leads.read'] });
    await inTx((tx) => upsertPermissions(tx, CORE_PERMISSIONS));

    await inTx((tx) => upsertPermissions(tx, [{ name: 'loyalty.points_adjust', description: 'Adjust loyalty points' }], 'loyalty'));
    expect(await t.prisma.permission.findUniqueOrThrow({ where: { name: 'loyalty.points_adjust' } })).toMatchObject({ source: 'loyalty' });
  });

  it('refuses a name another source declared, a badly formed name and a duplicate', async () => {
    await expectDomainError(
      inTx((tx) => upsertPermissions(tx, [{ name: 'orders.manage', description: 'mine now' }], 'loyalty')),
      'CONFLICT',
      'permission orders.manage is already declared by core',
    );
    await expectDomainError(
      inTx((tx) => upsertPermissions(tx, [{ name: 'Orders', description: 'x' }], 'loyalty')),
      'BAD_USER_INPUT',
      /must look like area\.action/,
    );
    const twice = [
      { name: 'loyalty.read', description: 'x' },
      { name: 'loyalty.read', description: 'y' },
    ];
    await expectDomainError(
      inTx((tx) => upsertPermissions(tx, twice, 'loyalty')),
      'BAD_USER_INPUT',
      'permission loyalty.read is declared twice',
    );
  });
});

describe('staff and their permissions', () => {
  let supportId: bigint;

  beforeAll(async () => {
    await inTx((tx) => upsertPermissions(tx, CORE_PERMISSIONS));
    await inTx((tx) => ensureRole(tx, { name: 'support', permissions: ['orders.read', 'customers.read'] }));
    await inTx((tx) => ensureRole(tx, { name: 'sales', permissions: ['orders.read', 'leads.read'] }));
    supportId = (
      await inTx((tx) =>
        createStaffUser(tx, { email: 'Support@Shop.example', password: PASSWORD, name: 'Sam Support', roles: ['support', 'sales'] }),
      )
    ).id;
  });

  it('holds the union of its roles’ permissions', async () => {
    expect(await inTx((tx) => permissionsOf(tx, supportId))).toEqual(['customers.read', 'leads.read', 'orders.read']);
    await inTx((tx) => requirePermission(tx, supportId, 'orders.read'));
  });

  it('is refused a permission no role grants, as FORBIDDEN naming it', async () => {
    const error = await expectDomainError(
      inTx((tx) => requirePermission(tx, supportId, 'orders.manage')),
      'FORBIDDEN',
      'missing permission orders.manage',
    );
    expect(error.details).toEqual({ permission: 'orders.manage' });
  });

  it('authorizes staff principals only', async () => {
    expect(await inTx((tx) => authorizeStaff(tx, { kind: 'staff', staffUserId: supportId }, 'orders.read'))).toBe(supportId);
    await expectDomainError(
      inTx((tx) => authorizeStaff(tx, null, 'orders.read')),
      'UNAUTHENTICATED',
    );
    const customer = { kind: 'customer', customerId: 1n, channelId: 1n, customerGroupId: null } as const;
    await expectDomainError(
      inTx((tx) => authorizeStaff(tx, customer, 'orders.read')),
      'FORBIDDEN',
      'missing permission orders.read',
    );
  });

  it('refuses an unknown role, an undeclared permission and a duplicate email', async () => {
    await expectDomainError(
      inTx((tx) => createStaffUser(tx, { email: 'x@shop.example', password: PASSWORD, name: 'X', roles: ['ghost'] })),
      'NOT_FOUND',
      'role ghost does not exist',
    );
    await expectDomainError(
      inTx((tx) => ensureRole(tx, { name: 'odd', permissions: ['nothing.here'] })),
      'NOT_FOUND',
      'permission nothing.here is not declared',
    );
    await expectDomainError(
      inTx((tx) => createStaffUser(tx, { email: 'support@shop.example', password: PASSWORD, name: 'Again' })),
      'CONFLICT',
      'a staff user with this email already exists',
    );
  });

  it('sign in with the right password; wrong password and unknown email share one message', async () => {
    expect((await inTx((tx) => authenticateStaff(tx, 'SUPPORT@shop.example', PASSWORD))).id).toBe(supportId);
    const wrong = await expectDomainError(
      inTx((tx) => authenticateStaff(tx, 'support@shop.example', 'wrong horse battery')),
      'UNAUTHENTICATED',
    );
    const unknown = await expectDomainError(
      inTx((tx) => authenticateStaff(tx, 'nobody@shop.example', PASSWORD)),
      'UNAUTHENTICATED',
    );
    expect(unknown.message).toBe(wrong.message);
  });

  it('once deactivated, can neither sign in nor use any permission', async () => {
    const user = await inTx((tx) =>
      createStaffUser(tx, { email: 'leaver@shop.example', password: PASSWORD, name: 'Lee Leaver', roles: ['support'] }),
    );
    await t.prisma.staffUser.update({ where: { id: user.id }, data: { active: false } });
    await expectDomainError(
      inTx((tx) => authenticateStaff(tx, 'leaver@shop.example', PASSWORD)),
      'UNAUTHENTICATED',
      'this staff account is deactivated',
    );
    await expectDomainError(
      inTx((tx) => requirePermission(tx, user.id, 'orders.read')),
      'FORBIDDEN',
    );
    expect(await inTx((tx) => permissionsOf(tx, user.id))).toEqual([]);
  });
});

describe('the seeded admin', () => {
  it('holds every declared permission, is created once, and is granted permissions declared later', async () => {
    const input = { email: 'admin@shop.example', password: PASSWORD, name: 'Admin' };
    const first = await inTx((tx) => ensureAdmin(tx, input));
    expect(first.created).toBe(true);
    const declared = (await t.prisma.permission.findMany({ select: { name: true }, orderBy: { name: 'asc' } })).map((p) => p.name);
    expect(await inTx((tx) => permissionsOf(tx, first.staffUser.id))).toEqual(declared);

    const second = await inTx((tx) => ensureAdmin(tx, { ...input, password: 'another password entirely' }));
    expect(second).toEqual({ staffUser: first.staffUser, created: false });
    expect(await t.prisma.role.count({ where: { name: ADMIN_ROLE } })).toBe(1);
    expect((await inTx((tx) => authenticateStaff(tx, input.email, PASSWORD))).id).toBe(first.staffUser.id);

    await inTx((tx) => upsertPermissions(tx, [{ name: 'loyalty.tiers_manage', description: 'Manage loyalty tiers' }], 'loyalty'));
    await inTx((tx) => requirePermission(tx, first.staffUser.id, 'loyalty.tiers_manage'));
  });
});
