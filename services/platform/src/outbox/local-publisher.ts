import type { OutboxMessage, Publisher } from './publisher.ts';

export type TopicHandler = (message: OutboxMessage) => Promise<void>;

/**
 * Without a broker, topic events go straight to the handlers the consumer service would run,
 * in this process and in outbox order. A failing handler fails the pass, which is retried.
 */
export class LocalPublisher implements Publisher {
  readonly #handlers: ReadonlyMap<string, readonly TopicHandler[]>;

  constructor(handlers: ReadonlyMap<string, readonly TopicHandler[]> = new Map()) {
    this.#handlers = handlers;
  }

  async publish(messages: readonly OutboxMessage[]): Promise<void> {
    for (const message of messages) {
      for (const handle of this.#handlers.get(message.topic) ?? []) await handle(message);
    }
  }

  async close(): Promise<void> {}
}
