import type { KafkaMessage } from 'kafkajs';
import type { ConsumedMessage } from './group-definition.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type Decoded = { readonly ok: true; readonly message: ConsumedMessage } | { readonly ok: false; readonly reason: string };

/**
 * Reads the wire format of the outbox relay: key = entity id, value = the JSON payload, whose
 * `event_id` (a UUID) identifies the event. Anything else is poison: no retry can fix it.
 */
export function decodeMessage(topic: string, partition: number, raw: KafkaMessage): Decoded {
  if (raw.value === null) return { ok: false, reason: 'the message has no value' };
  let payload: unknown;
  try {
    payload = JSON.parse(raw.value.toString('utf8'));
  } catch (error) {
    return { ok: false, reason: `the value is not JSON: ${(error as Error).message}` };
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    return { ok: false, reason: 'the value is not a JSON object' };
  }
  const eventId = (payload as Record<string, unknown>).event_id;
  if (typeof eventId !== 'string' || !UUID.test(eventId)) {
    return { ok: false, reason: 'the payload has no event_id UUID' };
  }
  const message = { topic, key: raw.key?.toString('utf8') ?? null, eventId: eventId.toLowerCase(), payload, partition, offset: raw.offset };
  return { ok: true, message: message as ConsumedMessage };
}
