// GraphQL over HTTP against a running api, as a BFF calls it: staff with a bearer token, a guest
// with the session the api issued, the channel in a header. A GraphQL error rejects.
export interface GraphqlCaller {
  <T>(query: string, variables?: Record<string, unknown>): Promise<T>;
}

export interface CallerOptions {
  readonly accessToken?: string;
  readonly sessionId?: string;
  /** The channel's code, as a BFF sends it with every request. */
  readonly channel?: string;
}

export function graphqlCaller(apiUrl: string, options: CallerOptions = {}): GraphqlCaller {
  return async <T>(query: string, variables: Record<string, unknown> = {}): Promise<T> => {
    const response = await fetch(`${apiUrl}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(options.channel ? { 'x-channel-id': options.channel } : {}),
        ...(options.accessToken ? { authorization: `Bearer ${options.accessToken}` } : {}),
        ...(options.sessionId ? { 'x-session-id': options.sessionId } : {}),
      },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await response.json()) as { data?: T; errors?: unknown[] };
    if (body.errors !== undefined || body.data === undefined)
      throw new Error(`${query.trim().split('\n')[0]}: HTTP ${response.status} ${JSON.stringify(body.errors)}`);
    return body.data;
  };
}
