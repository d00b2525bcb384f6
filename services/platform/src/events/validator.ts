import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { EVENT_NAMES, type EventName } from './catalog.ts';

export const EVENT_SCHEMAS_DIR = path.resolve(import.meta.dirname, '../../../../schemas/events');

export interface EventValidationError {
  /** JSON pointer of the failing value; '' is the payload itself. */
  readonly path: string;
  readonly message: string;
}

export class EventSchemaError extends Error {
  readonly eventName: string;
  readonly errors: readonly EventValidationError[];

  constructor(eventName: string, errors: readonly EventValidationError[]) {
    const described = errors.map((error) => `${error.path || '(payload)'} ${error.message}`).join('; ');
    super(`invalid payload for ${eventName}: ${described}`);
    this.name = 'EventSchemaError';
    this.eventName = eventName;
    this.errors = errors;
  }
}

/** A fresh ajv with the formats the event schemas use. */
export function createSchemaCompiler(): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  addFormats.default(ajv, ['date-time', 'uuid', 'email']);
  return ajv;
}

let validators: ReadonlyMap<string, ValidateFunction> | undefined;

/** Compiled once, on first use: every event's schema from schemas/events. */
function compiled(): ReadonlyMap<string, ValidateFunction> {
  if (validators === undefined) {
    const ajv = createSchemaCompiler();
    validators = new Map(
      EVENT_NAMES.map((name) => {
        const schema = JSON.parse(readFileSync(path.join(EVENT_SCHEMAS_DIR, `${name}.json`), 'utf8')) as object;
        return [name, ajv.compile(schema)];
      }),
    );
  }
  return validators;
}

function describe(error: ErrorObject): EventValidationError {
  const property = error.keyword === 'additionalProperties' ? `/${String(error.params.additionalProperty)}` : '';
  const message = error.keyword === 'additionalProperties' ? 'is not a known field' : (error.message ?? 'is invalid');
  return { path: `${error.instancePath}${property}`, message };
}

/** The payload's problems against its event's schema; empty when it is valid. */
export function validateEvent(name: EventName, payload: unknown): readonly EventValidationError[] {
  const validate = compiled().get(name);
  if (validate === undefined) return [{ path: '', message: `${name} is not a registered event` }];
  return validate(payload) ? [] : (validate.errors ?? []).map(describe);
}
