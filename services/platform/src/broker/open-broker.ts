import type { Config } from '../config/config.ts';
import type { Logger } from '@shop/runtime';
import type { Broker } from './broker.ts';
import { KafkaBroker } from './kafka-broker.ts';

/** Without BROKER_ADDRESS, events stay in the outbox and are delivered to local handlers in-process. */
const inProcessBroker: Broker = {
  mode: 'embedded',
  kafka: undefined,
  async ping() {},
  async close() {},
};

export function openBroker(config: Config, logger: Logger): Broker {
  if (config.brokers === undefined) {
    logger.warn('BROKER_ADDRESS is not set: broker topics are delivered in-process');
    return inProcessBroker;
  }
  return new KafkaBroker(config.brokers, logger);
}
