// The api built over a migrated test database of its own, with the outbox running, driven by app.inject.
import type { FastifyInstance } from 'fastify';
import { liftRateLimits } from '../../../../test/support/rate-limits.ts';
import { startOutbox, type Platform, type PrismaClient, type RunningOutbox } from '@shop/platform';
import { ensureAdmin, tokenSettings, type TokenSettings } from '@shop/domain/auth';
import { closeAfterAudit } from '../../../../test/support/money-audit.ts';
import { openTestPlatform } from '../../../../test/support/test-platform.ts';
import { buildApp, type AppOptions } from '../../src/app.ts';
import { seedShop } from '../../src/seed.ts';

export const TEST_SECRET = 'graphql-test-secret-key-0123456789abcdef';
export const ADMIN = { email: 'admin@shop.test', password: 'admin-password-1', name: 'Admin' };

export interface GraphqlError {
  readonly message: string;
  readonly path?: readonly (string | number)[];
  readonly extensions: { readonly code: string; readonly field?: string; readonly [key: string]: unknown };
}

export interface GraphqlResponse<T> {
  readonly status: number;
  readonly data: T | null | undefined;
  readonly errors: readonly GraphqlError[] | undefined;
}

export interface GraphqlApi {
  readonly app: FastifyInstance;
  readonly platform: Platform;
  readonly prisma: PrismaClient;
  readonly outbox: RunningOutbox;
  readonly tokens: TokenSettings;
  /** POST /graphql with these headers. */
  request<T = Record<string, unknown>>(
    query: string,
    variables?: Record<string, unknown>,
    headers?: Record<string, string>,
  ): Promise<GraphqlResponse<T>>;
  /** Like request, but fails the test on any error and returns the data. */
  data<T = Record<string, unknown>>(query: string, variables?: Record<string, unknown>, headers?: Record<string, string>): Promise<T>;
  /** The first error of a request that must fail. */
  error(query: string, variables?: Record<string, unknown>, headers?: Record<string, string>): Promise<GraphqlError & { status: number }>;
  /** Signs the seeded admin in; returns the Authorization header. */
  adminHeaders(): Promise<Record<string, string>>;
  /** A new guest session id from the startGuestSession mutation, to send as X-Session-ID. */
  guestSession(): Promise<string>;
  /** Stops the api, audits the books (test/support/money-audit.ts) and drops the database, failing when the audit does. */
  close(): Promise<void>;
}

export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

/** `env` adds to (or overrides) the platform's configuration; `options` to what the app is built with (its file storage). */
export async function openGraphqlApi(
  name: string,
  env: Record<string, string> = {},
  options: Omit<AppOptions, 'outbox'> = {},
): Promise<GraphqlApi> {
  const test = await openTestPlatform(name, { SECRET_KEY: TEST_SECRET, EVENT_SCHEMA_MODE: 'strict', ...env });
  const { platform } = test;
  await liftRateLimits(test.database.url);
  const outbox = startOutbox(platform, { idleMs: 20 });
  const app = await buildApp(platform, { ...options, outbox });
  await app.ready();
  const prisma = platform.database.prisma;
  await prisma.$transaction((tx) => ensureAdmin(tx, ADMIN));

  const request = async <T>(
    query: string,
    variables: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ): Promise<GraphqlResponse<T>> => {
    const response = await app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'application/json', ...headers },
      payload: { query, variables },
    });
    const body = response.json<{ data?: T | null; errors?: GraphqlError[] }>();
    return { status: response.statusCode, data: body.data, errors: body.errors };
  };
  const api: GraphqlApi = {
    app,
    platform,
    prisma,
    outbox,
    tokens: tokenSettings(TEST_SECRET),
    request,
    async data<T>(query: string, variables?: Record<string, unknown>, headers?: Record<string, string>) {
      const response = await request<T>(query, variables, headers);
      if (response.errors !== undefined || response.data == null)
        throw new Error(`GraphQL request failed (${response.status}): ${JSON.stringify(response.errors)}`);
      return response.data;
    },
    async error(query: string, variables?: Record<string, unknown>, headers?: Record<string, string>) {
      const response = await request(query, variables, headers);
      const [first] = response.errors ?? [];
      if (first === undefined) throw new Error(`expected an error, got ${JSON.stringify(response.data)}`);
      return { ...first, status: response.status };
    },
    async adminHeaders() {
      const { loginStaff } = await api.data<{ loginStaff: { accessToken: string } }>(
        'mutation ($email: String!, $password: String!) { loginStaff(email: $email, password: $password) { accessToken } }',
        { email: ADMIN.email, password: ADMIN.password },
      );
      return bearer(loginStaff.accessToken);
    },
    async guestSession() {
      return (await api.data<{ startGuestSession: string }>('mutation { startGuestSession }')).startGuestSession;
    },
    async close() {
      await app.close();
      await outbox.stop();
      await closeAfterAudit(prisma, () => test.close());
    },
  };
  return api;
}

export interface SeededShop {
  /** The demo channel ("web") and stock location, as GraphQL ids. */
  readonly channelId: string;
  readonly locationId: string;
  /** The seeded admin's Authorization header. */
  readonly admin: Record<string, string>;
}

/** The demo catalog of `npm run db:seed` in the api's database, and the admin signed in. */
export async function seedDemoShop(api: GraphqlApi): Promise<SeededShop> {
  const report = await seedShop(
    api.outbox.transaction,
    { emit: api.outbox.emit, now: () => new Date() },
    { email: 'seed@shop.test', password: 'seed-password-1', name: 'Seed' },
  );
  return { channelId: report.channelId.toString(), locationId: report.locationId.toString(), admin: await api.adminHeaders() };
}
