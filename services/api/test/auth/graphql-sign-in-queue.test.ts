// The bound on sign-ins waiting for the process's one scrypt derivation (PASSWORD_QUEUE_MAX): a burst
// beyond it is refused at once with 503 and Retry-After instead of queueing without end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, openGraphqlApi, seedDemoShop, type GraphqlApi } from '../support/graphql-harness.ts';

const QUEUE_MAX = 3;
const WEB = { 'x-channel-id': 'web' };
const CUSTOMER = { email: 'queued@example.com', password: 'queued-password-1' };
const STAFF_SIGN_IN = 'mutation ($email: String!, $password: String!) { loginStaff(email: $email, password: $password) { accessToken } }';
const CUSTOMER_SIGN_IN =
  'mutation ($email: String!, $password: String!) { loginCustomer(email: $email, password: $password) { accessToken } }';

let api: GraphqlApi;

beforeAll(async () => {
  api = await openGraphqlApi('graphql_sign_in_queue', { PASSWORD_QUEUE_MAX: String(QUEUE_MAX) });
  await seedDemoShop(api);
  await api.data('mutation ($input: RegisterCustomerInput!) { registerCustomer(input: $input) { accessToken } }', { input: CUSTOMER }, WEB);
});

afterAll(async () => {
  await api?.close();
});

interface Answer {
  readonly status: number;
  readonly retryAfter: string | string[] | undefined;
  readonly body: { data?: unknown; errors?: { message: string; extensions: Record<string, unknown> }[] };
  readonly answeredAt: number;
}

async function signIn(
  query: string,
  credentials: { email: string; password: string },
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await api.app.inject({
    method: 'POST',
    url: '/graphql',
    headers: { 'content-type': 'application/json', ...headers },
    payload: { query, variables: credentials },
  });
  return { status: response.statusCode, retryAfter: response.headers['retry-after'], body: response.json(), answeredAt: performance.now() };
}

describe('sign-ins beyond PASSWORD_QUEUE_MAX', () => {
  it('are refused at once with 503 and Retry-After while the admitted ones sign in', async () => {
    const burst = await Promise.all([
      ...Array.from({ length: 4 }, () => signIn(STAFF_SIGN_IN, ADMIN)),
      ...Array.from({ length: 3 }, () => signIn(CUSTOMER_SIGN_IN, CUSTOMER, WEB)),
    ]);
    const signedIn = burst.filter((answer) => answer.status === 200);
    const refused = burst.filter((answer) => answer.status !== 200);

    expect(signedIn).toHaveLength(QUEUE_MAX);
    for (const answer of signedIn) expect(answer.body.errors).toBeUndefined();
    expect(refused).toHaveLength(burst.length - QUEUE_MAX);
    for (const answer of refused) {
      expect(answer.status).toBe(503);
      expect(answer.retryAfter).toMatch(/^[1-9]\d*$/);
      expect(answer.body.data).toBeNull();
      expect(answer.body.errors).toEqual([
        {
          message: expect.stringContaining('too many password checks are waiting'),
          path: [expect.stringMatching(/^login(Staff|Customer)$/)],
          locations: expect.any(Array),
          extensions: { code: 'UNAVAILABLE', retryAfterSeconds: Number(answer.retryAfter) },
        },
      ]);
    }
    // Refused without waiting for the queue: before the first admitted sign-in's derivation ends.
    expect(Math.max(...refused.map((answer) => answer.answeredAt))).toBeLessThan(Math.min(...signedIn.map((answer) => answer.answeredAt)));

    // Once the queue has drained, sign-ins are admitted again.
    expect((await signIn(STAFF_SIGN_IN, ADMIN)).status).toBe(200);
  });
});
