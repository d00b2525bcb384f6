import { getVariableValues, type GraphQLError, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';

export type CoercedVariables =
  { readonly values: Record<string, unknown>; readonly error?: never } | { readonly values?: never; readonly error: GraphQLError };

/**
 * An operation's variable values as execution will see them, by graphql-js's own coercion: defaults
 * applied to the variables left out, values converted to their types. A security decision made on
 * these cannot be dodged by a default in the document or a value GraphQL would read otherwise.
 * `error` when they do not coerce (execution refuses such a request with the same error).
 */
export function coerceVariables(schema: GraphQLSchema, operation: OperationDefinitionNode, given: unknown): CoercedVariables {
  const inputs = typeof given === 'object' && given !== null && !Array.isArray(given) ? (given as Record<string, unknown>) : {};
  const result = getVariableValues(schema, operation.variableDefinitions ?? [], inputs, { maxErrors: 1 });
  const [error] = result.errors ?? [];
  if (error !== undefined) return { error };
  return { values: result.coerced ?? {} };
}
