import { Kafka, logLevel, type Admin } from 'kafkajs';
import type { Logger } from '@shop/runtime';
import type { Broker } from './broker.ts';
import { kafkaLogCreator } from './kafka-logging.ts';

export const KAFKA_CLIENT_ID = 'shop';

/**
 * Connection to Kafka. The health probe uses its own admin client with no retries, so a stopped
 * broker is reported within one probe; a failed probe drops the connection and the next reconnects.
 */
export class KafkaBroker implements Broker {
  readonly mode = 'external';
  readonly kafka: Kafka;
  readonly #probeClient: Kafka;
  #admin: Admin | undefined;

  constructor(brokers: readonly string[], logger: Logger) {
    const common = { clientId: KAFKA_CLIENT_ID, brokers: [...brokers], logCreator: kafkaLogCreator(logger) };
    this.kafka = new Kafka({ ...common, logLevel: logLevel.WARN });
    this.#probeClient = new Kafka({
      ...common,
      logLevel: logLevel.NOTHING,
      connectionTimeout: 1_000,
      requestTimeout: 1_500,
      retry: { retries: 0 },
    });
  }

  async ping(): Promise<void> {
    this.#admin ??= this.#probeClient.admin();
    const admin = this.#admin;
    try {
      await admin.connect();
      const cluster = await admin.describeCluster();
      if (cluster.brokers.length === 0) throw new Error('the cluster reports no live broker');
    } catch (error) {
      this.#admin = undefined;
      await admin.disconnect().catch(() => {});
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.#admin?.disconnect();
    this.#admin = undefined;
  }
}
