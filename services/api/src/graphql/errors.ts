import mercurius from 'mercurius';
import type { GraphQLFormattedError } from 'graphql';

type Formatter = typeof mercurius.defaultErrorFormatter;

/** Every GraphQL error carries extensions.code, so BFFs can branch on it rather than on messages. */
export const formatGraphqlErrors: Formatter = (execution, context) => {
  const formatted = mercurius.defaultErrorFormatter(execution, context);
  const fallbackCode = formatted.statusCode >= 500 ? 'INTERNAL' : 'BAD_REQUEST';
  const errors = formatted.response.errors?.map(
    (error): GraphQLFormattedError => ({
      ...error,
      extensions: { code: fallbackCode, ...error.extensions },
    }),
  );
  return { ...formatted, response: { ...formatted.response, errors } };
};
