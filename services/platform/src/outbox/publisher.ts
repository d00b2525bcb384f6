/** One outbox row on its way to the broker. */
export interface OutboxMessage {
  readonly id: string;
  readonly eventId: string;
  readonly topic: string;
  readonly key: string;
  /** The payload as JSON text, as stored: it is sent as is, never parsed and serialised again. */
  readonly value: string;
  readonly createdAt: Date;
}

/** Where the relay hands topic events; without a broker there is no relay (the dispatcher delivers them). */
export interface Publisher {
  /** Resolves only once every message is acknowledged; rejects when any is not. Order within a key is kept. */
  publish(messages: readonly OutboxMessage[]): Promise<void>;
  close(): Promise<void>;
}
