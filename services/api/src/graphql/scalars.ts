import { GraphQLScalarType, valueFromASTUntyped } from 'graphql';

/** Any JSON value, passed through as it is (settings). */
export const JsonScalar = new GraphQLScalarType({
  name: 'JSON',
  description: 'Any JSON value.',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (ast, variables) => valueFromASTUntyped(ast, variables),
});
