// The payment gateway port: providers by name, the core's `http`, and the gateway the configuration chooses (docs/money.md).
import { ConfigError } from '@shop/runtime';
import type { Config } from '../config/config.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { ProviderRegistry, type NamedProvider } from '../provider-registry.ts';
import type { MasterKeyring } from '../secrets/keyring.ts';
import type { PaymentGateway } from './gateway.ts';
import { cachedCredentials, storedSecretCredentials } from './gateway-credentials.ts';
import { HttpPaymentGateway } from './http-gateway.ts';

/** What a gateway is built from when its provider is chosen. */
export interface PaymentGatewayContext {
  readonly config: Config;
  /** Where the gateway's credentials are read from (stored secrets, decrypted with the master keys). */
  readonly db: Prisma.TransactionClient;
  readonly masterKeys: MasterKeyring;
}

export interface PaymentGatewayProvider extends NamedProvider {
  /** Whether the configuration sets the provider up: only a configured provider is chosen. */
  isConfigured(config: Config): boolean;
  /** Throws a ConfigError naming the variable it misses. */
  create(context: PaymentGatewayContext): PaymentGateway;
}

export type PaymentGatewayRegistry = ProviderRegistry<PaymentGatewayProvider>;

/** The HTTP gateway at PAYMENT_GATEWAY_URL, with the stored API key (kept, see cachedCredentials). */
export const httpGatewayProvider: PaymentGatewayProvider = {
  name: 'http',
  isConfigured: (config) => config.paymentGatewayUrl !== undefined,
  create({ config, db, masterKeys }) {
    if (config.paymentGatewayUrl === undefined)
      throw new ConfigError(['PAYMENT_GATEWAY_URL: is required by the http payment gateway provider']);
    return new HttpPaymentGateway({
      baseUrl: config.paymentGatewayUrl,
      credentials: cachedCredentials(storedSecretCredentials(db, masterKeys)),
    });
  },
};

/** A registry holding the core's `http` provider; one registered after it wins when both are configured. */
export function corePaymentGatewayRegistry(): PaymentGatewayRegistry {
  const registry = new ProviderRegistry<PaymentGatewayProvider>('payment gateway provider');
  registry.register(httpGatewayProvider);
  return registry;
}

/** The gateway of the last registered provider the configuration sets up, or undefined when none is: no card payments. */
export function openPaymentGateway(
  context: PaymentGatewayContext,
  registry: PaymentGatewayRegistry = corePaymentGatewayRegistry(),
): PaymentGateway | undefined {
  return registry.lastConfigured(context.config)?.create(context);
}
