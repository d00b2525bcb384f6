import type { Prisma } from '../generated/prisma/client.ts';
import type { MasterKeyring } from '../secrets/keyring.ts';
import type { PaymentGateway } from './gateway.ts';
import { storedSecretCredentials } from './gateway-credentials.ts';
import { HttpPaymentGateway } from './http-gateway.ts';

/** The gateway at PAYMENT_GATEWAY_URL with the stored API key, or undefined when no URL is set (no card payments). */
export function configuredGateway(paymentGatewayUrl: string | undefined, db: Prisma.TransactionClient, keyring: MasterKeyring): PaymentGateway | undefined {
  return paymentGatewayUrl === undefined ? undefined : new HttpPaymentGateway({ baseUrl: paymentGatewayUrl, credentials: storedSecretCredentials(db, keyring) });
}
