import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signAccessToken, staffPrincipal, tokenSettings } from '@shop/domain/auth';
import { ADMIN, bearer, openGraphqlApi, type GraphqlApi } from '../support/graphql-harness.ts';

const PREVIOUS_SECRET = 'graphql-previous-secret-key-0123456789ab';
const PLAINTEXT = 'sk_live_do-not-leak-4242';

let api: GraphqlApi;
let admin: Record<string, string>;

beforeAll(async () => {
  api = await openGraphqlApi('graphql_secrets', { SECRET_KEY_PREVIOUS: PREVIOUS_SECRET });
  admin = await api.adminHeaders();
});

afterAll(async () => {
  await api?.close();
});

const SET = 'mutation ($key: String!, $value: String!) { setSecret(key: $key, value: $value) { key setAt setByStaffUserId keyId } }';
const STATUS = 'query ($key: String!) { secretStatus(key: $key) { key setAt setByStaffUserId keyId } }';

describe('stored secrets over GraphQL', () => {
  it('stores a secret encrypted and answers only when, by whom and under which key id', async () => {
    const { setSecret } = await api.data<{ setSecret: Record<string, string | null> }>(
      SET,
      { key: 'payments.gateway_api_key', value: PLAINTEXT },
      admin,
    );
    const adminUser = await api.prisma.staffUser.findUniqueOrThrow({ where: { email: ADMIN.email } });
    expect(setSecret).toMatchObject({
      key: 'payments.gateway_api_key',
      setByStaffUserId: adminUser.id.toString(),
      keyId: expect.any(String),
    });
    const { secretStatus } = await api.data<{ secretStatus: unknown }>(STATUS, { key: 'payments.gateway_api_key' }, admin);
    expect(secretStatus).toEqual(setSecret);

    const row = await api.prisma.storedSecret.findUniqueOrThrow({ where: { key: 'payments.gateway_api_key' } });
    expect(Buffer.from(row.ciphertext).toString('latin1')).not.toContain(PLAINTEXT);
    expect((await api.data<{ secretStatus: unknown }>(STATUS, { key: 'payments.never_set' }, admin)).secretStatus).toBeNull();
  });

  it('never echoes the value, in an answer or in an error', async () => {
    const refused = await api.request(SET, { key: 'Not A Key', value: PLAINTEXT }, admin);
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'key' });
    const anonymous = await api.request(SET, { key: 'payments.other', value: PLAINTEXT });
    expect(anonymous.errors?.[0]?.extensions.code).toBe('UNAUTHENTICATED');
    expect(JSON.stringify([refused, anonymous])).not.toContain(PLAINTEXT);
  });

  it('is for staff with secrets.manage, as its description says', async () => {
    const { __type } = await api.data<{ __type: { fields: { name: string; description: string }[] } }>(
      '{ __type(name: "Mutation") { fields { name description } } }',
    );
    expect(__type.fields.find((field) => field.name === 'setSecret')?.description).toMatch(
      /^Staff \(secrets\.manage\): stores the value encrypted/,
    );
  });
});

describe('signing key rotation', () => {
  it('accepts an access token SECRET_KEY_PREVIOUS signed, and refuses one signed by another key', async () => {
    const adminUser = await api.prisma.staffUser.findUniqueOrThrow({ where: { email: ADMIN.email } });
    const previous = await signAccessToken(staffPrincipal(adminUser), tokenSettings(PREVIOUS_SECRET));
    expect(await api.data<{ staffMe: { email: string } }>('{ staffMe { email } }', {}, bearer(previous.token))).toEqual({
      staffMe: { email: ADMIN.email },
    });

    const stranger = await signAccessToken(staffPrincipal(adminUser), tokenSettings('some-other-secret-key-0123456789abcdef'));
    const refused = await api.request('{ staffMe { email } }', {}, bearer(stranger.token));
    expect(refused.status).toBe(401);
    expect(refused.errors?.[0]?.extensions.code).toBe('UNAUTHENTICATED');
  });
});
