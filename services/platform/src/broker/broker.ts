import type { Probe } from '../health/probe.ts';

/** The event broker connection: Kafka when BROKER_ADDRESS is set, in-process delivery otherwise. */
export interface Broker extends Probe {
  close(): Promise<void>;
}
