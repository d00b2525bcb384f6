// Where the HTTP gateway adapter gets its API key: a stored secret (docs/secrets.md), or a value given.
import type { Prisma } from '../generated/prisma/client.ts';
import type { MasterKeyring } from '../secrets/keyring.ts';
import { readStoredSecret } from '../secrets/stored-secrets.ts';

/** The stored secret gateway API keys are kept under by default. */
export const GATEWAY_API_KEY_SECRET = 'payments.gateway_api_key';

/**
 * How long a process uses the stored key it read before reading it again (docs/money.md): a key set
 * anew reaches every process within this, and at once any process the gateway refuses the old key to.
 */
export const GATEWAY_KEY_TTL_MS = 30_000;

export interface GatewayCredentials {
  apiKey(): Promise<string>;
  /** Drops a key kept from an earlier read, so the next apiKey() reads it again (the gateway refused it). */
  forget?(): void;
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

/** Reads the stored secret at every call. */
export function storedSecretCredentials(
  db: Prisma.TransactionClient,
  keyring: MasterKeyring,
  secretKey = GATEWAY_API_KEY_SECRET,
): GatewayCredentials {
  return {
    async apiKey() {
      const value = await readStoredSecret(db, keyring, secretKey);
      if (value === undefined) throw new GatewayCredentialsMissingError(secretKey);
      return value;
    },
  };
}

/**
 * Keeps the key `source` answers, so a gateway call made inside a transaction does not wait for a
 * second connection of the pool to read it (enough such calls at once would hold every connection and
 * wait for one). Only the first call waits for a read, shared by the calls made meanwhile; past
 * `ttlMs` the kept key is still answered while a read in the background replaces it.
 */
export function cachedCredentials(
  source: GatewayCredentials,
  ttlMs = GATEWAY_KEY_TTL_MS,
  now: () => number = Date.now,
): Required<GatewayCredentials> {
  let kept: { key: string; readAt: number } | undefined;
  let reading: Promise<string> | undefined;
  // A read started before forget() must not keep the key it answers.
  let generation = 0;
  const read = (): Promise<string> => {
    const started = generation;
    reading ??= source
      .apiKey()
      .then((key) => {
        if (started === generation) kept = { key, readAt: now() };
        return key;
      })
      .finally(() => {
        if (started === generation) reading = undefined;
      });
    return reading;
  };
  return {
    async apiKey() {
      if (kept === undefined) return read();
      if (now() - kept.readAt >= ttlMs) {
        // A failed refresh drops the key: the next call reads again and answers the error.
        read().catch(() => void (kept = undefined));
      }
      return kept.key;
    },
    forget() {
      generation += 1;
      kept = undefined;
      reading = undefined;
    },
  };
}
