/** The subset of JSON Schema the Shop schema uses (schemas/crd/shop.v1alpha1.json). */
export interface JsonSchema {
  readonly type?: string;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly additionalProperties?: JsonSchema | boolean;
  readonly required?: readonly string[];
  readonly items?: JsonSchema;
  readonly anyOf?: readonly JsonSchema[];
  readonly enum?: readonly unknown[];
  readonly pattern?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly maxItems?: number;
}

/**
 * The first way `value` breaks `schema`, as `path: problem`, or undefined when it conforms. Like the
 * API server with strict field validation, an object with declared properties accepts no others.
 */
export function firstSchemaProblem(value: unknown, schema: JsonSchema, path: string): string | undefined {
  if (schema.anyOf && !schema.anyOf.some((branch) => firstSchemaProblem(value, branch, path) === undefined)) {
    return `${path}: has the wrong type`;
  }
  if (schema.type && !hasType(value, schema.type)) return `${path}: must be ${article(schema.type)}`;
  if (schema.enum && !schema.enum.includes(value)) return `${path}: must be one of ${schema.enum.join(', ')}`;
  if (typeof value === 'string') return stringProblem(value, schema, path);
  if (typeof value === 'number') return numberProblem(value, schema, path);
  if (Array.isArray(value)) return arrayProblem(value, schema, path);
  if (isObject(value)) return objectProblem(value, schema, path);
  return undefined;
}

function stringProblem(value: string, schema: JsonSchema, path: string): string | undefined {
  if (schema.minLength !== undefined && value.length < schema.minLength)
    return `${path}: must have at least ${schema.minLength} characters`;
  if (schema.maxLength !== undefined && value.length > schema.maxLength) return `${path}: must have at most ${schema.maxLength} characters`;
  if (schema.pattern !== undefined && !new RegExp(schema.pattern).test(value)) return `${path}: "${value}" must match ${schema.pattern}`;
  return undefined;
}

function numberProblem(value: number, schema: JsonSchema, path: string): string | undefined {
  if (schema.minimum !== undefined && value < schema.minimum) return `${path}: must be at least ${schema.minimum}`;
  if (schema.maximum !== undefined && value > schema.maximum) return `${path}: must be at most ${schema.maximum}`;
  return undefined;
}

function arrayProblem(value: unknown[], schema: JsonSchema, path: string): string | undefined {
  if (schema.maxItems !== undefined && value.length > schema.maxItems) return `${path}: must have at most ${schema.maxItems} items`;
  const items = schema.items;
  return items ? firstOf(value.map((item, index) => () => firstSchemaProblem(item, items, `${path}[${index}]`))) : undefined;
}

function objectProblem(value: Record<string, unknown>, schema: JsonSchema, path: string): string | undefined {
  const missing = schema.required?.find((field) => value[field] === undefined);
  if (missing !== undefined) return `${path}.${missing}: is required`;
  return firstOf(
    Object.entries(value).map(([field, fieldValue]) => () => {
      const fieldSchema = schema.properties?.[field] ?? schema.additionalProperties;
      if (fieldSchema === undefined) return schema.properties ? `${path}.${field}: is not a field of ${path}` : undefined;
      if (typeof fieldSchema === 'boolean') return fieldSchema ? undefined : `${path}.${field}: is not a field of ${path}`;
      return firstSchemaProblem(fieldValue, fieldSchema, `${path}.${field}`);
    }),
  );
}

function firstOf(checks: ReadonlyArray<() => string | undefined>): string | undefined {
  for (const check of checks) {
    const problem = check();
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    default:
      return typeof value === type;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
