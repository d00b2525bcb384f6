import mercurius from 'mercurius';
import {
  getNamedType,
  getOperationAST,
  isLeafType,
  Kind,
  visit,
  type DocumentNode,
  type GraphQLField,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { getComplexity, type ComplexityEstimator } from 'graphql-query-complexity';
import { DEFAULT_PAGE_SIZE } from './ids.ts';
import { rootFieldsOf } from './root-fields.ts';
import { coerceVariables } from './variable-values.ts';

/** Enough for a page that asks for a few lists side by side; far below a document of repeated fields. */
export const MAX_ALIASES = 30;
export const MAX_ROOT_FIELDS = 20;

/**
 * The items a field with `first` answers: `first`, or when it is null or left out the page its
 * resolver answers then, the field's declared default (DEFAULT_PAGE_SIZE, pageSize's, for a field
 * declaring none). 1 for a field without `first`.
 */
function itemsOf(field: GraphQLField<unknown, unknown>, first: unknown): number {
  const argument = field.args.find((candidate) => candidate.name === 'first');
  if (argument === undefined) return 1;
  if (typeof first === 'number') return Math.max(first, 0);
  return typeof argument.defaultValue === 'number' ? argument.defaultValue : DEFAULT_PAGE_SIZE;
}

/**
 * What a request costs (docs/graphql-limits.md): 1 for each object field, 0 for a scalar; a field
 * with `first` multiplies what its items cost by the items it answers (itemsOf). A list without
 * `first` (a product's categories, a category's children) counts its items once: its length is the
 * data's, not the caller's, and repeating it is what the alias and root-field caps bound.
 */
export const costOfField: ComplexityEstimator = ({ field, args, childComplexity }) => {
  const ownCost = isLeafType(getNamedType(field.type)) ? 0 : 1;
  return ownCost + itemsOf(field, args['first']) * childComplexity;
};

const NUL = '\u0000';

/** What a document holds, whatever its variables: worked out once per parsed document (mercurius caches those by text). */
interface DocumentSurvey {
  readonly aliases: number;
  /** Whether it reads the schema (`__schema`, `__type`; `__typename` is not that). */
  readonly introspects: boolean;
  /** Whether a string literal holds the NUL character. */
  readonly nul: boolean;
  /** The variables the cost depends on: those given to `first` and to `@include`/`@skip`. */
  readonly costVariables: readonly string[];
}

const COST_DIRECTIVES = new Set(['include', 'skip']);

function survey(document: DocumentNode): DocumentSurvey {
  let aliases = 0;
  let introspects = false;
  let nul = false;
  const costVariables = new Set<string>();
  visit(document, {
    Field(field) {
      if (field.alias !== undefined) aliases += 1;
      if (field.name.value === '__schema' || field.name.value === '__type') introspects = true;
      for (const argument of field.arguments ?? []) {
        if (argument.name.value === 'first' && argument.value.kind === Kind.VARIABLE) costVariables.add(argument.value.name.value);
      }
    },
    Directive(directive) {
      if (!COST_DIRECTIVES.has(directive.name.value)) return;
      for (const argument of directive.arguments ?? []) {
        if (argument.value.kind === Kind.VARIABLE) costVariables.add(argument.value.name.value);
      }
    },
    StringValue(value) {
      if (value.value.includes(NUL)) nul = true;
    },
  });
  return { aliases, introspects, nul, costVariables: [...costVariables] };
}

/** Whether a variable's value holds the NUL character in a string, at any depth. */
function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes(NUL);
  if (typeof value !== 'object' || value === null) return false;
  return Object.values(value).some(holdsNul);
}

/** Costs remembered per document, by operation and cost variables; a document asked with ever new values starts over. */
const COSTS_PER_DOCUMENT = 32;

interface DocumentLimits {
  readonly survey: DocumentSurvey;
  readonly costs: Map<string, number>;
}

const surveyed = new WeakMap<DocumentNode, DocumentLimits>();

function limitsOf(document: DocumentNode): DocumentLimits {
  let known = surveyed.get(document);
  if (known === undefined) {
    known = { survey: survey(document), costs: new Map() };
    surveyed.set(document, known);
  }
  return known;
}

/** Keyed on the values execution sees (coerced, defaults applied): a variable left out with no default differs from one given as null. */
function costKey(operationName: string | undefined, variables: Record<string, unknown>, costVariables: readonly string[]): string {
  const values = costVariables.map((name) => (Object.hasOwn(variables, name) ? JSON.stringify(variables[name]) : '-'));
  return `${operationName ?? ''}\u0000${values.join('\u0000')}`;
}

function costOf(request: QueryRequest, variables: Record<string, unknown>, limits: DocumentLimits): number {
  const key = costKey(request.operationName, variables, limits.survey.costVariables);
  const known = limits.costs.get(key);
  if (known !== undefined) return known;
  const cost = getComplexity({
    estimators: [costOfField],
    schema: request.schema,
    query: request.document,
    variables,
    ...(request.operationName === undefined ? {} : { operationName: request.operationName }),
  });
  if (limits.costs.size >= COSTS_PER_DOCUMENT) limits.costs.clear();
  limits.costs.set(key, cost);
  return cost;
}

const refuse = (message: string, extensions: Record<string, unknown>, code = 'QUERY_TOO_LARGE') =>
  new mercurius.ErrorWithProps(message, { code, ...extensions }, 400);

/** The variables as execution will coerce them; refused as execution would refuse them when they do not coerce. */
function variablesOf(request: QueryRequest, operation: OperationDefinitionNode): Record<string, unknown> {
  const { values, error } = coerceVariables(request.schema, operation, request.variables);
  if (error !== undefined) throw refuse(error.message, {}, 'BAD_USER_INPUT');
  return values;
}

export interface QueryLimits {
  /** GRAPHQL_MAX_COST. */
  readonly maxCost: number;
  /** GRAPHQL_INTROSPECTION. */
  readonly introspection: boolean;
}

export interface QueryRequest {
  readonly schema: GraphQLSchema;
  readonly document: DocumentNode;
  readonly variables: Record<string, unknown> | undefined;
  readonly operationName: string | undefined;
}

/**
 * Refuses, before anything runs, text holding the NUL character (U+0000, which PostgreSQL cannot store
 * in text or jsonb) in an argument or variable, introspection where it is off, and a request over the
 * alias cap, the root field cap (counted once fragments are expanded) or the cost limit; answers its
 * cost otherwise, worked out on the variables as GraphQL coerces them.
 */
export function checkQueryLimits(request: QueryRequest, limits: QueryLimits): number {
  const documentLimits = limitsOf(request.document);
  const { aliases, introspects, nul } = documentLimits.survey;
  if (nul || holdsNul(request.variables)) throw refuse('text must not contain the NUL character (U+0000)', {}, 'BAD_USER_INPUT');
  if (introspects && !limits.introspection) {
    throw refuse('introspection (__schema, __type) is turned off here (GRAPHQL_INTROSPECTION)', {}, 'INTROSPECTION_DISABLED');
  }
  if (aliases > MAX_ALIASES)
    throw refuse(`the query uses ${aliases} aliases; at most ${MAX_ALIASES} are allowed`, { aliases, limit: MAX_ALIASES });
  const operation = getOperationAST(request.document, request.operationName);
  if (operation === null || operation === undefined) return 0; // execution answers that the operation is unknown; nothing runs
  const rootFields = rootFieldsOf(request.document, operation).length;
  if (rootFields > MAX_ROOT_FIELDS)
    throw refuse(`the query asks for ${rootFields} root fields; at most ${MAX_ROOT_FIELDS} are allowed`, {
      rootFields,
      limit: MAX_ROOT_FIELDS,
    });
  const cost = costOf(request, variablesOf(request, operation), documentLimits);
  const { maxCost } = limits;
  if (cost > maxCost)
    throw refuse(`the query costs ${cost}; at most ${maxCost} is allowed (ask for fewer items with first, or split it)`, {
      cost,
      limit: maxCost,
    });
  return cost;
}
