// The platform's HTTP adapter against the test gateway: how it reads its API key (stored secrets, kept
// and read again), and how it answers what the wire answers (not found, an unreachable gateway).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../../test/support/wait.ts';
import {
  API_KEY,
  eur,
  expectOperation,
  fresh,
  openGatewayUnderTest,
  type GatewayUnderTest,
} from '../../../../tools/test-gateway/test/support/gateway.ts';
import {
  cachedCredentials,
  GATEWAY_API_KEY_SECRET,
  GatewayCredentialsMissingError,
  storedSecretCredentials,
} from '../../src/payments/gateway-credentials.ts';
import { HttpPaymentGateway } from '../../src/payments/http-gateway.ts';
import { masterKeyring } from '../../src/secrets/keyring.ts';
import { setStoredSecret } from '../../src/secrets/stored-secrets.ts';
import { newMasterKey, openSecretsDatabase, type SecretsDatabase } from '../support/secrets-database.ts';

let t: GatewayUnderTest;
let secrets: SecretsDatabase;
const T0 = new Date('2026-11-25T10:00:00.000Z');

beforeAll(async () => {
  [t, secrets] = await Promise.all([openGatewayUnderTest('http_gateway'), openSecretsDatabase('http_gateway_secrets')]);
});
afterAll(async () => {
  await Promise.all([t?.close(), secrets?.close()]);
});

describe('the HTTP gateway adapter', () => {
  it('answers not_found for a key never used', async () => {
    expect(await t.gateway.lookUp(fresh('never'))).toEqual({ status: 'not_found' });
  });

  it('reads its API key from the stored secrets at every call, and says which secret is missing', async () => {
    const keyring = masterKeyring(newMasterKey());
    const prisma = secrets.database.prisma;
    const gateway = new HttpPaymentGateway({ baseUrl: t.server.url, credentials: storedSecretCredentials(prisma, keyring) });
    const request = { idempotencyKey: fresh('auth'), amount: eur(100), cardToken: fresh('tok') };
    await expect(gateway.authorize(request)).rejects.toThrow(GatewayCredentialsMissingError);
    await expect(gateway.authorize(request)).rejects.toThrow(`the stored secret ${GATEWAY_API_KEY_SECRET} is not set`);

    await setStoredSecret(prisma, keyring, { key: GATEWAY_API_KEY_SECRET, value: 'a_rotated_out_key', setAt: T0, setByStaffUserId: null });
    expect(await gateway.authorize(request)).toMatchObject({ code: 'authentication_failed' });
    await setStoredSecret(prisma, keyring, { key: GATEWAY_API_KEY_SECRET, value: API_KEY, setAt: T0, setByStaffUserId: null });
    expectOperation(await gateway.authorize(request), 'approved');
  });

  it('keeps the stored key it read, reads it again past the TTL, and at once when the gateway refuses the kept one', async () => {
    const keyring = masterKeyring(newMasterKey());
    const prisma = secrets.database.prisma;
    const stored = storedSecretCredentials(prisma, keyring);
    let reads = 0;
    let clock = 0;
    const credentials = cachedCredentials({ apiKey: () => ((reads += 1), stored.apiKey()) }, 1_000, () => clock);
    const gateway = new HttpPaymentGateway({ baseUrl: t.server.url, credentials });
    const authorize = () => gateway.authorize({ idempotencyKey: fresh('auth'), amount: eur(100), cardToken: fresh('tok') });
    const setKey = (value: string) =>
      setStoredSecret(prisma, keyring, { key: GATEWAY_API_KEY_SECRET, value, setAt: T0, setByStaffUserId: null });

    await setKey(API_KEY);
    expectOperation(await authorize(), 'approved');
    await setKey('a_rotated_out_key');
    expectOperation(await authorize(), 'approved');
    expect(reads).toBe(1);

    // Past the TTL the kept key still answers while a read replaces it; then the new key is used.
    clock = 1_000;
    expectOperation(await authorize(), 'approved');
    await eventually(async () => expect(await authorize()).toMatchObject({ code: 'authentication_failed' }));

    // The gateway refusing the kept key makes the adapter read it at once and send the call again.
    await setKey(API_KEY);
    const readsBefore = reads;
    expectOperation(await authorize(), 'approved');
    expect(reads).toBe(readsBefore + 1);
  });

  it('answers a gateway that cannot be reached as retryable', async () => {
    const gone = await openGatewayUnderTest('test_gateway_gone');
    await gone.close();
    const answer = await gone.gateway.lookUp(fresh('auth'));
    expect(answer).toMatchObject({
      status: 'error',
      retryable: true,
      code: 'unavailable',
      message: expect.stringContaining(gone.server.url),
    });
  });
});
