import { ApiException } from '@kubernetes/client-node';

/** The HTTP status of a failed API call, or undefined when the call never got an answer. */
export function statusCode(error: unknown): number | undefined {
  return error instanceof ApiException ? error.code : undefined;
}

export const isNotFound = (error: unknown): boolean => statusCode(error) === 404;
export const isConflict = (error: unknown): boolean => statusCode(error) === 409;

/**
 * A request the API server refused on its merits (invalid object, forbidden, immutable field):
 * retrying the same request cannot succeed until something else changes. Conflicts and throttling
 * are not: they pass on the next attempt.
 */
export function isRejected(error: unknown): boolean {
  const code = statusCode(error);
  return code !== undefined && code >= 400 && code < 500 && code !== 404 && code !== 409 && code !== 429;
}

/**
 * An object the operator reads (an annotation, a Secret's data) is not what it expects: retrying
 * cannot help until someone changes it, so the Shop's status says what is wrong.
 */
export class InvalidObjectError extends Error {
  override readonly name = 'InvalidObjectError';
}

/** The API server's own message (a Status object's `message`) instead of client-node's dump of headers and body. */
export function describeError(error: unknown): string {
  if (error instanceof ApiException) {
    const body: unknown = typeof error.body === 'string' ? parseJson(error.body) : error.body;
    const message = (body as { message?: unknown } | undefined)?.message;
    return `HTTP ${error.code}: ${typeof message === 'string' ? message : 'no message'}`;
  }
  return error instanceof Error ? error.message : String(error);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { message: text };
  }
}
