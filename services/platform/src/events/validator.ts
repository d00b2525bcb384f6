import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { EVENT_NAMES, type EventName } from './catalog.ts';
import { SCHEMAS_DIR } from './schema-files.ts';

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

/** A fresh ajv configured as the event schemas need: strict, every error reported, their formats. */
export function createSchemaCompiler(): Ajv2020 {
  // Nullable fields are written `"type": ["string", "null"]`, which strict mode refuses by default.
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  addFormats.default(ajv, ['date-time', 'uuid', 'email']);
  return ajv;
}

let validators: ReadonlyMap<string, ValidateFunction> | undefined;

/** Every event's schema from schemas/events, compiled once, on first use. */
function compiled(): ReadonlyMap<string, ValidateFunction> {
  if (validators === undefined) {
    const ajv = createSchemaCompiler();
    validators = new Map(
      EVENT_NAMES.map((name) => {
        const schema = JSON.parse(readFileSync(path.join(SCHEMAS_DIR, `${name}.json`), 'utf8')) as object;
        return [name, ajv.compile(schema)];
      }),
    );
  }
  return validators;
}

const child = (pointer: string, key: unknown): string => `${pointer}/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`;

/** Missing and unknown fields are reported at the field's own path, the rest where ajv found them. */
function describe(error: ErrorObject): EventValidationError {
  if (error.keyword === 'required') return { path: child(error.instancePath, error.params.missingProperty), message: 'is required' };
  if (error.keyword === 'additionalProperties')
    return { path: child(error.instancePath, error.params.additionalProperty), message: 'is not a known field' };
  return { path: error.instancePath, message: error.message ?? 'is invalid' };
}

/** The payload's problems against its event's schema; empty when it is valid. */
export function validateEvent(name: EventName, payload: unknown): readonly EventValidationError[] {
  const validate = compiled().get(name);
  if (validate === undefined) return [{ path: '', message: `${name} is not a registered event` }];
  return validate(payload) ? [] : (validate.errors ?? []).map(describe);
}
