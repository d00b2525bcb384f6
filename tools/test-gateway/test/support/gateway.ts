// A test gateway on a database of the test file's own, the platform's HTTP adapter on it, and its control client.
import { expect } from 'vitest';
import { givenCredentials, HttpPaymentGateway, type GatewayAnswer, type GatewayOperation, type Money } from '@shop/platform';
import { createTestDatabase, type TestDatabase } from '../../../../test/infra/isolation.ts';
import { startTestGateway, TestGatewayControl, type RunningTestGateway } from '../../src/index.ts';

export const API_KEY = 'test_gateway_key_1';

export interface GatewayUnderTest {
  /** The database the gateway keeps its tables in (schema test_gateway). */
  readonly database: TestDatabase;
  readonly server: RunningTestGateway;
  readonly gateway: HttpPaymentGateway;
  readonly control: TestGatewayControl;
  close(): Promise<void>;
}

export async function openGatewayUnderTest(name: string): Promise<GatewayUnderTest> {
  const database = await createTestDatabase(name);
  const server = await startTestGateway({ databaseUrl: database.url, apiKey: API_KEY });
  return {
    database,
    server,
    gateway: new HttpPaymentGateway({ baseUrl: server.url, credentials: givenCredentials(API_KEY) }),
    control: new TestGatewayControl(server.url, API_KEY),
    async close() {
      await server.close();
      await database.drop();
    },
  };
}

let counter = 0;
/** A key or card token no other test uses. */
export const fresh = (what: string): string => `${what}_${(counter += 1)}`;

export const eur = (amountMinor: number): Money => ({ amountMinor, currency: 'EUR' });

export function expectOperation<S extends GatewayOperation['status']>(
  answer: GatewayAnswer,
  status: S,
): Extract<GatewayOperation, { status: S }> {
  expect(answer, JSON.stringify(answer)).toMatchObject({ status });
  return answer as Extract<GatewayOperation, { status: S }>;
}
