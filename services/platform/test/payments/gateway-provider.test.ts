// The payment gateway port: the gateway the configuration chooses among the registered providers, the core's `http` one against the test gateway.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '@shop/runtime';
import { loadConfig } from '../../src/config/config.ts';
import { GATEWAY_API_KEY_SECRET } from '../../src/payments/gateway-credentials.ts';
import {
  corePaymentGatewayRegistry,
  httpGatewayProvider,
  openPaymentGateway,
  type PaymentGatewayProvider,
} from '../../src/payments/gateway-provider.ts';
import { masterKeyring } from '../../src/secrets/keyring.ts';
import { setStoredSecret } from '../../src/secrets/stored-secrets.ts';
import {
  API_KEY,
  eur,
  expectOperation,
  fresh,
  openGatewayUnderTest,
  type GatewayUnderTest,
} from '../../../../tools/test-gateway/test/support/gateway.ts';
import { newMasterKey, openSecretsDatabase, type SecretsDatabase } from '../support/secrets-database.ts';

let t: GatewayUnderTest;
let secrets: SecretsDatabase;
const masterKeys = masterKeyring(newMasterKey());

beforeAll(async () => {
  [t, secrets] = await Promise.all([openGatewayUnderTest('gateway_provider'), openSecretsDatabase('gateway_provider_secrets')]);
  await setStoredSecret(secrets.database.prisma, masterKeys, {
    key: GATEWAY_API_KEY_SECRET,
    value: API_KEY,
    setAt: new Date(),
    setByStaffUserId: null,
  });
});
afterAll(async () => {
  await Promise.all([t?.close(), secrets?.close()]);
});

const contextOf = (env: NodeJS.ProcessEnv) => ({ config: loadConfig(env), db: secrets.database.prisma, masterKeys });

describe('the payment gateway port', () => {
  it('opens the http gateway at PAYMENT_GATEWAY_URL with the stored API key, and none without the URL: no card payments', async () => {
    expect(openPaymentGateway(contextOf({}))).toBeUndefined();
    const gateway = openPaymentGateway(contextOf({ PAYMENT_GATEWAY_URL: t.server.url }));
    if (gateway === undefined) throw new Error('no gateway was opened with PAYMENT_GATEWAY_URL set');
    expectOperation(await gateway.authorize({ idempotencyKey: fresh('auth'), amount: eur(700), cardToken: fresh('tok') }), 'approved');
  });

  it('chooses the last registered provider the configuration sets up', () => {
    let otherConfigured = false;
    const other: PaymentGatewayProvider = { ...httpGatewayProvider, name: 'other', isConfigured: () => otherConfigured };
    const registry = corePaymentGatewayRegistry();
    registry.register(other);
    expect(registry.names()).toEqual(['http', 'other']);
    const withUrl = loadConfig({ PAYMENT_GATEWAY_URL: t.server.url });
    expect(registry.lastConfigured(withUrl)?.name).toBe('http');
    otherConfigured = true;
    expect(registry.lastConfigured(withUrl)?.name).toBe('other');
    expect(registry.lastConfigured(loadConfig({}))?.name).toBe('other');
    otherConfigured = false;
    expect(openPaymentGateway(contextOf({}), registry)).toBeUndefined();
  });

  it('refuses a second provider of one name, and the http one built without its URL names the variable', () => {
    expect(() => corePaymentGatewayRegistry().register(httpGatewayProvider)).toThrow(
      'a payment gateway provider named "http" is registered already',
    );
    expect(() => httpGatewayProvider.create(contextOf({}))).toThrow(
      new ConfigError(['PAYMENT_GATEWAY_URL: is required by the http payment gateway provider']),
    );
  });
});
