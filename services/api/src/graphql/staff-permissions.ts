import { Kind, parse, print, visit, type ConstDirectiveNode, type FieldDefinitionNode, type StringValueNode } from 'graphql';
import { CORE_PERMISSIONS } from '@shop/domain/auth';

/**
 * `@staff(permission: "orders.read")` on a field of an area's schema: the one place a permission
 * is declared. It feeds the check (graph-areas.ts binds the field's staffField resolver to it) and
 * the documentation (the field's description starts "Staff (orders.read)"). The directive is
 * removed before the schema is served, so clients see only the description.
 */
export interface GatedSchema {
  /** The SDL without the directive, descriptions prefixed. */
  readonly schema: string;
  /** "Type.field" → the permission it requires. */
  readonly permissions: ReadonlyMap<string, string>;
}

const CORE_PERMISSION_NAMES: readonly string[] = CORE_PERMISSIONS.map((permission) => permission.name);

function permissionOf(directive: ConstDirectiveNode, where: string, known: ReadonlySet<string>): string {
  const argument = directive.arguments?.find((candidate) => candidate.name.value === 'permission');
  const value = argument?.value.kind === Kind.STRING ? argument.value.value : undefined;
  if (value === undefined) throw new Error(`${where}: @staff needs permission: "<name>"`);
  if (!known.has(value)) throw new Error(`${where}: @staff names ${value}, which is not a declared permission`);
  return value;
}

/** A sentence of its own follows a full stop; a phrase (lower case, or a code such as AWAITING_APPROVAL) a colon. */
function describe(permission: string, description: StringValueNode | undefined): StringValueNode {
  const prefix = `Staff (${permission})`;
  const text = description?.value;
  const value = text === undefined ? `${prefix}.` : /^[A-Z][a-z]/.test(text) ? `${prefix}. ${text}` : `${prefix}: ${text}`;
  return { kind: Kind.STRING, value, block: description?.block ?? false };
}

/** Reads and removes the @staff directives of an area's SDL; `declared` are permissions besides the core ones (an extension's). */
export function gateStaffFields(sdl: string, declared: readonly string[] = []): GatedSchema {
  const known = new Set([...CORE_PERMISSION_NAMES, ...declared]);
  const permissions = new Map<string, string>();
  let typeName = '';
  const document = visit(parse(sdl), {
    ObjectTypeDefinition: { enter: (node) => void (typeName = node.name.value) },
    ObjectTypeExtension: { enter: (node) => void (typeName = node.name.value) },
    FieldDefinition(field): FieldDefinitionNode | undefined {
      const directive = field.directives?.find((candidate) => candidate.name.value === 'staff');
      if (directive === undefined) return undefined;
      const where = `${typeName}.${field.name.value}`;
      const permission = permissionOf(directive, where, known);
      permissions.set(where, permission);
      return {
        ...field,
        description: describe(permission, field.description),
        directives: field.directives?.filter((other) => other !== directive) ?? [],
      };
    },
  });
  return { schema: print(document), permissions };
}
