// Where the HTTP gateway adapter gets its API key: a stored secret (docs/secrets.md), or a value given.
import type { Prisma } from '../generated/prisma/client.ts';
import type { MasterKeyring } from '../secrets/keyring.ts';
import { readStoredSecret } from '../secrets/stored-secrets.ts';

/** The stored secret gateway API keys are kept under by default. */
export const GATEWAY_API_KEY_SECRET = 'payments.gateway_api_key';

export interface GatewayCredentials {
  /** Read at every call, so a key set anew is used from the next call on. */
  apiKey(): Promise<string>;
}

export class GatewayCredentialsMissingError extends Error {
  constructor(secretKey: string) {
    super(`the stored secret ${secretKey} is not set: staff with secrets.manage set it with setSecret (docs/secrets.md)`);
    this.name = 'GatewayCredentialsMissingError';
  }
}

export function givenCredentials(apiKey: string): GatewayCredentials {
  return { apiKey: async () => apiKey };
}

export function storedSecretCredentials(db: Prisma.TransactionClient, keyring: MasterKeyring, secretKey = GATEWAY_API_KEY_SECRET): GatewayCredentials {
  return {
    async apiKey() {
      const value = await readStoredSecret(db, keyring, secretKey);
      if (value === undefined) throw new GatewayCredentialsMissingError(secretKey);
      return value;
    },
  };
}
