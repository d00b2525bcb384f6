import type { Prisma } from '@shop/platform';
import { DomainError, LIMITS, optionalText, requireText, type Tx } from '../kernel/index.ts';

export interface EnsureRoleInput {
  readonly name: string;
  readonly description?: string | null;
  readonly permissions: readonly string[];
}

/**
 * Creates the role when missing and grants it the permissions it lacks; never revokes a grant, so
 * it is safe to run at every seed. Throws NOT_FOUND naming a permission nobody declared.
 */
export async function ensureRole(tx: Tx, input: EnsureRoleInput): Promise<Prisma.RoleModel> {
  const name = requireText('name', input.name, LIMITS.roleName);
  const description = optionalText('description', input.description, LIMITS.roleDescription);
  const wanted = [...new Set(input.permissions)];
  const declared = new Set((await tx.permission.findMany({ where: { name: { in: wanted } }, select: { name: true } })).map((p) => p.name));
  const undeclared = wanted.find((permission) => !declared.has(permission));
  if (undeclared !== undefined) throw new DomainError('NOT_FOUND', `permission ${undeclared} is not declared`, { permission: undeclared });

  const role = await tx.role.upsert({ where: { name }, create: { name, description }, update: {} });
  await tx.rolePermission.createMany({ data: wanted.map((permission) => ({ roleId: role.id, permission })), skipDuplicates: true });
  return role;
}
