import { givenCredentials, HttpPaymentGateway, type Prisma } from '@shop/platform';
import { startTestGateway, TestGatewayControl } from '../../../platform/src/payments/test-gateway/index.ts';
import type { DomainDeps } from '../../src/context.ts';
import { GATEWAY_TRANSACTION } from '../../src/payments/tenders.ts';
import { openCommerce, seedCatalog, type Catalog, type Commerce } from './support.ts';

/** A test database with a catalog, the real test gateway (its own HTTP server on that database) and the domain wired to it. */
export interface GatewayCommerce {
  readonly commerce: Commerce;
  readonly catalog: Catalog;
  /** The test gateway's own log and faults. */
  readonly control: TestGatewayControl;
  /** The commerce's dependencies with an HTTP gateway on the test gateway. */
  readonly deps: DomainDeps;
  /** A transaction long enough to wait for the gateway (GATEWAY_TRANSACTION). */
  readonly inGatewayTransaction: <T>(work: (tx: Prisma.TransactionClient) => Promise<T>) => Promise<T>;
  close(): Promise<void>;
}

/** `name` names the database and the gateway's API key; `prefix` the catalog's codes and slugs. */
export async function openGatewayCommerce(name: string, prefix: string): Promise<GatewayCommerce> {
  const commerce = await openCommerce(name);
  try {
    const catalog = await seedCatalog(commerce, prefix);
    const databaseUrl = commerce.platform.config.databaseUrl;
    if (databaseUrl === undefined) throw new Error('the test platform has no DATABASE_URL');
    const apiKey = `${name}_gateway_key`;
    const server = await startTestGateway({ databaseUrl, apiKey });
    return {
      commerce,
      catalog,
      control: new TestGatewayControl(server.url, apiKey),
      deps: { ...commerce.deps, gateway: new HttpPaymentGateway({ baseUrl: server.url, credentials: givenCredentials(apiKey) }) },
      inGatewayTransaction: (work) => commerce.transaction(work, GATEWAY_TRANSACTION),
      async close() {
        await server.close();
        await commerce.close();
      },
    };
  } catch (error) {
    await commerce.close();
    throw error;
  }
}
