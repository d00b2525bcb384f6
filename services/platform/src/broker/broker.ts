import type { Kafka } from 'kafkajs';
import type { Probe } from '../health/probe.ts';

/** The event broker connection: Kafka when BROKER_ADDRESS is set, in-process delivery otherwise. */
export interface Broker extends Probe {
  /** The Kafka client that topic events go through; undefined when they are delivered in-process. */
  readonly kafka: Kafka | undefined;
  close(): Promise<void>;
}
