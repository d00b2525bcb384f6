import mercurius from 'mercurius';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { DomainError } from '@shop/domain/kernel';

type Formatter = typeof mercurius.defaultErrorFormatter;
type Execution = Parameters<Formatter>[0];
type Context = Parameters<Formatter>[1];

const INTERNAL_MESSAGE = 'Internal server error';

function isDomainError(error: unknown): error is DomainError {
  return (
    error instanceof DomainError ||
    (error instanceof Error && error.name === 'DomainError' && typeof (error as Partial<DomainError>).code === 'string')
  );
}

interface UniqueViolationMeta {
  readonly target?: unknown;
  readonly driverAdapterError?: {
    readonly cause?: { readonly table?: unknown; readonly constraint?: { readonly fields?: unknown; readonly index?: unknown } };
  };
}

const camelCase = (column: string): string => column.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());

/**
 * Prisma's P2002: a unique constraint refused the row (a race the resolver's pre-check lost, or no
 * pre-check). The driver adapter names the index (`products_sku_key`), from which the columns follow.
 */
function uniqueViolationFields(error: unknown): string[] | undefined {
  if (typeof error !== 'object' || error === null || (error as { code?: unknown }).code !== 'P2002') return undefined;
  const meta = (error as { meta?: UniqueViolationMeta }).meta;
  const cause = meta?.driverAdapterError?.cause;
  let fields = meta?.target ?? cause?.constraint?.fields;
  const index = cause?.constraint?.index;
  if (
    fields === undefined &&
    typeof index === 'string' &&
    typeof cause?.table === 'string' &&
    index.startsWith(`${cause.table}_`) &&
    index.endsWith('_key')
  ) {
    fields = [index.slice(cause.table.length + 1, -'_key'.length)];
  }
  if (typeof fields === 'string') fields = [fields];
  return Array.isArray(fields) ? fields.map((field) => camelCase(String(field))) : [];
}

/** Errors GraphQL raised itself or that already carry a code (mercurius.ErrorWithProps) pass through. */
function carriesCode(error: unknown): boolean {
  const extensions = (error as { extensions?: { code?: unknown } } | undefined)?.extensions;
  return typeof extensions?.code === 'string';
}

function withExtensions(error: GraphQLError, message: string, extensions: Record<string, unknown>): GraphQLError {
  return new GraphQLError(message, { nodes: error.nodes, source: error.source, positions: error.positions, path: error.path, extensions });
}

/**
 * A DomainError becomes its code with its details (`field`, `permission`, `reason`, ...) as
 * extensions; a unique violation becomes CONFLICT naming the fields; any other error thrown while
 * resolving a field is a bug: it is logged whole and answered as INTERNAL without its message. (Text
 * PostgreSQL cannot hold, NUL, is refused before anything runs: checkQueryLimits.)
 */
export function toClientError(error: GraphQLError, log: { error(object: object, message: string): void }): GraphQLError {
  const original = error.originalError;
  if (isDomainError(original)) return withExtensions(error, original.message, { ...original.details, code: original.code });
  const unique = uniqueViolationFields(original);
  if (unique !== undefined) {
    const named = unique.length > 0 ? unique.join(', ') : 'value';
    return withExtensions(error, `a record with this ${named} already exists`, {
      code: 'CONFLICT',
      ...(unique.length === 1 ? { field: unique[0] } : {}),
    });
  }
  if (error.path !== undefined && original !== undefined && !(original instanceof GraphQLError) && !carriesCode(original)) {
    log.error({ err: original, path: error.path.join('.') }, 'resolver failed');
    return withExtensions(error, INTERNAL_MESSAGE, { code: 'INTERNAL' });
  }
  return error;
}

/**
 * Every GraphQL error carries extensions.code, so BFFs can branch on it rather than on messages. An
 * answer with no data because the server failed (INTERNAL) is a 500, so the HTTP 5xx rate and its
 * alert see it; a refusal (a domain error) with no data stays 200.
 */
export const formatGraphqlErrors: Formatter = (execution: Execution, context: Context) => {
  const log = context.reply?.log ?? context.app.log;
  const translated = { ...execution, errors: execution.errors.map((error) => toClientError(error, log)) };
  const defaults = mercurius.defaultErrorFormatter(translated, context);
  const failed = !execution.data && translated.errors.some((error) => error.extensions['code'] === 'INTERNAL');
  const formatted = failed ? { ...defaults, statusCode: 500 } : defaults;
  const fallbackCode = formatted.statusCode >= 500 ? 'INTERNAL' : 'BAD_REQUEST';
  const errors = formatted.response.errors?.map((error): GraphQLFormattedError => ({
    ...error,
    extensions: { code: fallbackCode, ...error.extensions },
  }));
  return { ...formatted, response: { ...formatted.response, errors } };
};
