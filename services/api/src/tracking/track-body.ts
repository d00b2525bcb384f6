import { MAX_BIGINT, TRACKED_ENTITY_TYPES, TRACKING_EVENT_TYPES, type TrackedEntityType, type TrackingEventType } from '@shop/domain';

/** The most events one POST /track may carry. */
export const MAX_BATCH_EVENTS = 50;

/** One event once validated: ids sent as JSON integers have become decimal strings. */
export interface BeaconEvent {
  readonly event_type: TrackingEventType;
  readonly entity_type: TrackedEntityType;
  readonly entity_id: string;
  readonly page_url: string;
  readonly referrer_url?: string;
  readonly channel_id?: string | null;
}

const ID_PATTERN = '^[1-9][0-9]{0,18}$';
/** Integers are accepted too: eventsOf() lets only positive safe integers through and the validator turns them into strings. */
const id = { type: 'string', pattern: ID_PATTERN } as const;

const eventSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['event_type', 'entity_type', 'entity_id', 'page_url'],
  properties: {
    event_type: { type: 'string', enum: TRACKING_EVENT_TYPES },
    entity_type: { type: 'string', enum: TRACKED_ENTITY_TYPES },
    entity_id: id,
    // Any length: longer URLs are cut to the column (500 characters), never refused.
    page_url: { type: 'string' },
    referrer_url: { type: 'string' },
    channel_id: { anyOf: [{ type: 'null' }, id] },
  },
} as const;

/**
 * The body of POST /track once a single event has been wrapped in a list: 1 to 50 events. Unknown
 * properties are ignored (Fastify's validator removes them), so older api versions accept newer beacons.
 */
export const trackBodySchema = { type: 'array', minItems: 1, maxItems: MAX_BATCH_EVENTS, items: eventSchema } as const;

/**
 * The JSON types each property may have, checked before the schema because its validator coerces
 * (true to "true", null to ""): an id may be an integer only when it is a positive safe integer,
 * which the validator then turns into its exact decimal string.
 */
const JSON_TYPES: Readonly<Record<string, readonly string[]>> = {
  event_type: ['string'],
  entity_type: ['string'],
  entity_id: ['integer', 'string'],
  page_url: ['string'],
  referrer_url: ['string'],
  channel_id: ['integer', 'string', 'null'],
};

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

const ID_MESSAGE = 'must be a positive integer id (a decimal string, or a JSON integer up to 2^53 - 1)';

/** A refusal naming the field: `entity_id` for a single event, `[3].entity_id` in a batch. */
export interface BodyProblem {
  readonly field: string;
  readonly message: string;
}

export const fieldName = (batch: boolean, index: number, property: string): string => (batch ? `[${index}].${property}` : property);

/** The body as a list (a single event is wrapped), or the first property of a wrong JSON type. */
export function eventsOf(body: unknown): { events: unknown; batch: boolean; problem?: BodyProblem } {
  const batch = Array.isArray(body);
  const events = batch ? body : [body];
  for (const [index, event] of (events as unknown[]).entries()) {
    if (event === null || typeof event !== 'object' || Array.isArray(event)) continue; // the schema names it
    for (const [property, value] of Object.entries(event)) {
      const allowed = JSON_TYPES[property];
      if (allowed === undefined) continue;
      const field = fieldName(batch, index, property);
      if (!allowed.includes(jsonType(value))) return { events, batch, problem: { field, message: `must be ${allowed.map(article).join(' or ')}` } };
      if (typeof value === 'number' && !(Number.isSafeInteger(value) && value >= 1)) return { events, batch, problem: { field, message: ID_MESSAGE } };
    }
  }
  return { events, batch };
}

const article = (type: string): string => (type === 'null' ? 'null' : type === 'integer' ? 'an integer' : `a ${type}`);

interface SchemaError {
  readonly keyword: string;
  readonly instancePath: string;
  readonly params: Record<string, unknown>;
  readonly message?: string;
}

/** The schema validator's first error in the caller's terms. */
export function describeSchemaError(errors: readonly SchemaError[] | undefined, batch: boolean): BodyProblem {
  const error = errors?.[0];
  if (error === undefined) return { field: 'body', message: 'is invalid' };
  const [index, property] = error.instancePath.split('/').slice(1);
  if (index === undefined) {
    if (error.keyword === 'maxItems') return { field: 'body', message: `must hold at most ${MAX_BATCH_EVENTS} events` };
    if (error.keyword === 'minItems') return { field: 'body', message: 'must hold at least one event' };
    return { field: 'body', message: 'must be an event object or a list of them' };
  }
  if (property === undefined) {
    if (error.keyword === 'required') return { field: fieldName(batch, Number(index), String(error.params.missingProperty)), message: 'is required' };
    return batch ? { field: `[${index}]`, message: 'must be an event object' } : { field: 'body', message: 'must be an event object or a list of them' };
  }
  const field = fieldName(batch, Number(index), property);
  if (error.keyword === 'enum') return { field, message: `must be one of ${(error.params.allowedValues as string[]).join(', ')}` };
  if (property === 'entity_id' || property === 'channel_id') return { field, message: ID_MESSAGE };
  return { field, message: error.message ?? 'is invalid' };
}

/** An id of a validated event as a bigint; undefined when a decimal string exceeds PostgreSQL's bigint. */
export function bigintId(value: string): bigint | undefined {
  const id = BigInt(value);
  return id <= MAX_BIGINT ? id : undefined;
}
