import type { Prisma } from '../generated/prisma/client.ts';
import type { MasterKeyring } from '../secrets/keyring.ts';
import type { PaymentGateway } from './gateway.ts';
import { cachedCredentials, storedSecretCredentials } from './gateway-credentials.ts';
import { HttpPaymentGateway } from './http-gateway.ts';

/** The gateway at PAYMENT_GATEWAY_URL with the stored API key (kept, see cachedCredentials), or undefined when no URL is set (no card payments). */
export function configuredGateway(paymentGatewayUrl: string | undefined, db: Prisma.TransactionClient, keyring: MasterKeyring): PaymentGateway | undefined {
  if (paymentGatewayUrl === undefined) return undefined;
  return new HttpPaymentGateway({ baseUrl: paymentGatewayUrl, credentials: cachedCredentials(storedSecretCredentials(db, keyring)) });
}
