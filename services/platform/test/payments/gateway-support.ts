// A test gateway on a migrated database of the test file's own, the HTTP adapter on it, and its control client.
import { expect } from 'vitest';
import type { GatewayAnswer, GatewayOperation, Money } from '../../src/payments/gateway.ts';
import { givenCredentials } from '../../src/payments/gateway-credentials.ts';
import { HttpPaymentGateway } from '../../src/payments/http-gateway.ts';
import { startTestGateway, TestGatewayControl, type RunningTestGateway } from '../../src/payments/test-gateway/index.ts';
import { openSecretsDatabase, type SecretsDatabase } from '../secrets/secrets-database.ts';

export const API_KEY = 'test_gateway_key_1';

export interface GatewayUnderTest {
  readonly db: SecretsDatabase;
  readonly server: RunningTestGateway;
  readonly gateway: HttpPaymentGateway;
  readonly control: TestGatewayControl;
  close(): Promise<void>;
}

export async function openGatewayUnderTest(name: string): Promise<GatewayUnderTest> {
  const db = await openSecretsDatabase(name);
  const server = await startTestGateway({ databaseUrl: db.url, apiKey: API_KEY });
  return {
    db,
    server,
    gateway: new HttpPaymentGateway({ baseUrl: server.url, credentials: givenCredentials(API_KEY) }),
    control: new TestGatewayControl(server.url, API_KEY),
    async close() {
      await server.close();
      await db.close();
    },
  };
}

let counter = 0;
/** A key or card token no other test uses. */
export const fresh = (what: string): string => `${what}_${(counter += 1)}`;

export const eur = (amountMinor: number): Money => ({ amountMinor, currency: 'EUR' });

export function expectOperation<S extends GatewayOperation['status']>(answer: GatewayAnswer, status: S): Extract<GatewayOperation, { status: S }> {
  expect(answer, JSON.stringify(answer)).toMatchObject({ status });
  return answer as Extract<GatewayOperation, { status: S }>;
}
