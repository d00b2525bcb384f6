import {
  MAX_BIGINT,
  TRACKED_ENTITY_TYPES,
  TRACKING_EVENT_TYPES,
  type TrackedEntityType,
  type TrackingEventType,
} from '@shop/domain/tracking';

/** The most events one POST /track (or one track mutation) may carry. */
export const MAX_BATCH_EVENTS = 50;

/** The largest body POST /track reads: 50 events with long URLs fit with room to spare. */
export const BODY_LIMIT_BYTES = 256 * 1024;

/** One event once validated. */
export interface BeaconEvent {
  readonly event_type: TrackingEventType;
  readonly entity_type: TrackedEntityType;
  readonly entity_id: bigint;
  /** Not cut yet: the tracker cuts it to the column. */
  readonly page_url: string;
  readonly referrer_url: string;
  readonly channel_id: bigint | null;
}

/**
 * Where a body is wrong and how: `path` is [] for the body itself, [index] for one event of it, [index,
 * property] for one property. Each transport names it its own way ({@link restFieldName}, the GraphQL
 * resolver's `events[3].entity_id`).
 */
export interface BodyProblem {
  readonly path: readonly [] | readonly [number] | readonly [number, string];
  readonly message: string;
}

export type ParsedBody =
  { readonly events: BeaconEvent[]; readonly batch: boolean } | { readonly problem: BodyProblem; readonly batch: boolean };

/**
 * The JSON types each property may have: an id may be an integer only when it is a positive safe
 * integer (a larger JSON number has already lost precision when parsed).
 */
const JSON_TYPES: Readonly<Record<string, readonly string[]>> = {
  event_type: ['string'],
  entity_type: ['string'],
  entity_id: ['integer', 'string'],
  page_url: ['string'],
  referrer_url: ['string'],
  channel_id: ['integer', 'string', 'null'],
};

const REQUIRED = ['event_type', 'entity_type', 'entity_id', 'page_url'] as const;
const ID_PATTERN = /^[1-9][0-9]{0,18}$/;
const ID_MESSAGE = 'must be a positive integer id (a decimal string, or a JSON integer up to 2^53 - 1)';
const TOO_LARGE_MESSAGE = `must be at most ${MAX_BIGINT}`;

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

const article = (type: string): string => (type === 'null' ? 'null' : type === 'integer' ? 'an integer' : `a ${type}`);
const isEventObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The first property of a wrong JSON type, in the event's own property order. */
function typeProblem(event: Record<string, unknown>, index: number): BodyProblem | undefined {
  for (const property in event) {
    const allowed = JSON_TYPES[property];
    if (allowed === undefined) continue;
    const value = event[property];
    const path = [index, property] as const;
    if (!allowed.includes(jsonType(value))) return { path, message: `must be ${allowed.map(article).join(' or ')}` };
    if (typeof value === 'number' && !(Number.isSafeInteger(value) && value >= 1)) return { path, message: ID_MESSAGE };
  }
  return undefined;
}

/** An id already of a JSON type it may have: its bigint, or the problem. */
function idOf(value: string | number, index: number, property: string): bigint | BodyProblem {
  const text = typeof value === 'number' ? String(value) : value;
  if (!ID_PATTERN.test(text)) return { path: [index, property], message: ID_MESSAGE };
  const id = BigInt(text);
  return id <= MAX_BIGINT ? id : { path: [index, property], message: TOO_LARGE_MESSAGE };
}

/** One event whose properties have their JSON types: checked and copied (unknown properties are left out). */
function eventOf(event: Record<string, unknown>, index: number): BeaconEvent | BodyProblem {
  for (const property of REQUIRED) {
    if (event[property] === undefined) return { path: [index, property], message: 'is required' };
  }
  const eventType = event.event_type as string;
  if (!TRACKING_EVENT_TYPES.includes(eventType as TrackingEventType)) {
    return { path: [index, 'event_type'], message: `must be one of ${TRACKING_EVENT_TYPES.join(', ')}` };
  }
  const entityType = event.entity_type as string;
  if (!TRACKED_ENTITY_TYPES.includes(entityType as TrackedEntityType)) {
    return { path: [index, 'entity_type'], message: `must be one of ${TRACKED_ENTITY_TYPES.join(', ')}` };
  }
  const entityId = idOf(event.entity_id as string | number, index, 'entity_id');
  if (typeof entityId !== 'bigint') return entityId;
  const channel = event.channel_id as string | number | null | undefined;
  const channelId = channel === undefined || channel === null ? null : idOf(channel, index, 'channel_id');
  if (channelId !== null && typeof channelId !== 'bigint') return channelId;
  return {
    event_type: eventType as TrackingEventType,
    entity_type: entityType as TrackedEntityType,
    entity_id: entityId,
    page_url: event.page_url as string,
    referrer_url: (event.referrer_url as string | undefined) ?? '',
    channel_id: channelId,
  };
}

/**
 * The body of POST /track, or the events of a track mutation: one event object or a list of 1 to 50
 * (docs/tracking.md, Body). Unknown properties are ignored, so an older api accepts a newer beacon.
 * Checked in this order, the first problem wins: the body's shape, the JSON type of every property of
 * every event, then each event's required properties, types of event and entity, and ids.
 */
export function parseBeacons(body: unknown): ParsedBody {
  const batch = Array.isArray(body);
  if (!batch && !isEventObject(body)) return { batch, problem: { path: [], message: 'must be an event object or a list of them' } };
  const items: readonly unknown[] = batch ? body : [body];
  for (const [index, item] of items.entries()) {
    if (!isEventObject(item)) continue; // named below
    const problem = typeProblem(item, index);
    if (problem !== undefined) return { batch, problem };
  }
  if (items.length === 0) return { batch, problem: { path: [], message: 'must hold at least one event' } };
  if (items.length > MAX_BATCH_EVENTS) return { batch, problem: { path: [], message: `must hold at most ${MAX_BATCH_EVENTS} events` } };
  const events: BeaconEvent[] = [];
  for (const [index, item] of items.entries()) {
    if (!isEventObject(item)) return { batch, problem: { path: [index], message: 'must be an event object' } };
    const event = eventOf(item, index);
    if (!('event_type' in event)) return { batch, problem: event };
    events.push(event);
  }
  return { batch, events };
}

/** A problem as POST /track names it: `entity_id` for a single event, `[3].entity_id` in a batch, `body` for the whole. */
export function restFieldName(problem: BodyProblem, batch: boolean): string {
  const [index, property] = problem.path;
  if (index === undefined) return 'body';
  if (!batch) return property ?? 'body';
  return property === undefined ? `[${index}]` : `[${index}].${property}`;
}
