import type { V1Secret } from '@kubernetes/client-node';
import { GENERATED_KEYS } from '@shop/cdk8s';
import { parseRewrapSummary, type RewrapSummary } from '@shop/runtime';
import { InvalidObjectError } from '../kube/errors.ts';

const ROTATION_PHASES = ['Settled', 'Adding', 'Switching', 'Rewrapping'] as const;
/**
 * Settled: the keys in use are rolled out. Adding: a new master key (and signing key) is accepted for
 * reading, not used yet. Switching: the new keys are current, the old master key only readable.
 * Rewrapping: the rewrap Job moves every stored secret to the current master key.
 */
export type RotationPhase = (typeof ROTATION_PHASES)[number];

/** An earlier key still accepted, and when its retention ends: unset until the switch away from it is rolled out. */
export interface RetiringKey {
  readonly key: string;
  readonly removeAfter?: Date;
}

/** The generated keys and where their rotation stands, as kept on the generated Secret (data and annotations). */
export interface KeySet {
  readonly phase: RotationPhase;
  /** Bumped whenever a key the pods read changes. 0 until the first rotation. */
  readonly revision: number;
  /** SECRETS_MASTER_KEY, base64. */
  readonly masterKey: string;
  /** In Adding only: the next master key, already in SECRETS_MASTER_KEY_ROTATING_FROM. */
  readonly incomingMasterKey?: string;
  /** Earlier master keys, in SECRETS_MASTER_KEY_ROTATING_FROM after the incoming one. */
  readonly retiringMasterKeys: readonly RetiringKey[];
  /** SECRET_KEY. */
  readonly signingKey: string;
  /**
   * SECRET_KEY_PREVIOUS: in Adding the next signing key; afterwards the one before the current, until
   * its removeAfter (unset until the switch is rolled out). A rotation starts only once it is gone.
   */
  readonly previousSigningKey?: { readonly key: string; readonly removeAfter?: Date };
  /** When the current keys became current (the Secret's creation before the first rotation). */
  readonly rotatedAt: Date;
  /** The key id of the master key a rewrap Job last moved every stored secret to. */
  readonly rewrappedTo?: string;
  /** The rows per master key id that rewrap Job counted at its end, when its pod said. */
  readonly rewrapCount?: RewrapSummary;
  /** The last value of the Shop's rotate-keys annotation acted on. */
  readonly handledRequest?: string;
}

const ANNOTATION = {
  phase: 'shop.dev/keys-phase',
  revision: 'shop.dev/keys-revision',
  rotatedAt: 'shop.dev/keys-rotated-at',
  retiring: 'shop.dev/keys-retiring',
  previousSigningKeyRemoveAfter: 'shop.dev/keys-previous-signing-key-remove-after',
  rewrappedTo: 'shop.dev/keys-rewrapped-to',
  rewrapCount: 'shop.dev/keys-rewrap-count',
  handledRequest: 'shop.dev/keys-handled-request',
} as const;

/** On the Deployments' pod templates: a new revision rolls them out, so the pods read the Secret again. */
export const KEYS_REVISION_ANNOTATION = ANNOTATION.revision;

/** The KeySet the generated Secret holds. Throws InvalidObjectError on annotations the operator did not write. */
export function keySetOf(secret: V1Secret): KeySet {
  const name = secret.metadata?.name ?? 'the generated keys Secret';
  const annotations = secret.metadata?.annotations ?? {};
  const data = (key: string): string | undefined => {
    const value = secret.data?.[key];
    return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
  };
  const required = (key: string): string => {
    const value = data(key);
    if (!value) throw new InvalidObjectError(`Secret ${name} has no ${key}`);
    return value;
  };
  const time = (text: string | undefined, what: string): Date | undefined => {
    if (text === undefined) return undefined;
    const date = new Date(text);
    if (Number.isNaN(date.getTime())) throw new InvalidObjectError(`Secret ${name}: ${what} is not a time: ${text}`);
    return date;
  };

  const phase = annotations[ANNOTATION.phase] ?? 'Settled';
  if (!(ROTATION_PHASES as readonly string[]).includes(phase))
    throw new InvalidObjectError(`Secret ${name}: ${ANNOTATION.phase} is not one of ${ROTATION_PHASES.join(', ')}: ${phase}`);
  const revision = Number(annotations[ANNOTATION.revision] ?? '0');
  if (!Number.isSafeInteger(revision) || revision < 0)
    throw new InvalidObjectError(`Secret ${name}: ${ANNOTATION.revision} is not a revision: ${annotations[ANNOTATION.revision]}`);

  const rotatingFrom = (data(GENERATED_KEYS.secretsMasterKeyRotatingFrom) ?? '').split(',').filter((key) => key !== '');
  const incomingMasterKey = phase === 'Adding' ? rotatingFrom.shift() : undefined;
  const removeAfters = jsonList(annotations[ANNOTATION.retiring] ?? '[]', `Secret ${name}: ${ANNOTATION.retiring}`).map((text) =>
    text === null ? undefined : time(String(text), ANNOTATION.retiring),
  );
  if (removeAfters.length !== rotatingFrom.length) {
    throw new InvalidObjectError(
      `Secret ${name}: ${ANNOTATION.retiring} names ${removeAfters.length} removal times for ${rotatingFrom.length} retiring master keys`,
    );
  }
  const previousSigning = data(GENERATED_KEYS.secretKeyPrevious);
  const previousRemoveAfter = time(annotations[ANNOTATION.previousSigningKeyRemoveAfter], ANNOTATION.previousSigningKeyRemoveAfter);
  return {
    phase: phase as RotationPhase,
    revision,
    masterKey: required(GENERATED_KEYS.secretsMasterKey),
    ...(incomingMasterKey === undefined ? {} : { incomingMasterKey }),
    retiringMasterKeys: rotatingFrom.map((key, index) => ({ key, removeAfter: removeAfters[index] })),
    signingKey: required(GENERATED_KEYS.secretKey),
    ...(previousSigning === undefined ? {} : { previousSigningKey: { key: previousSigning, removeAfter: previousRemoveAfter } }),
    rotatedAt: time(annotations[ANNOTATION.rotatedAt], ANNOTATION.rotatedAt) ?? new Date(secret.metadata?.creationTimestamp ?? 0),
    ...optional('rewrappedTo', annotations[ANNOTATION.rewrappedTo]),
    ...rewrapCountOf(annotations[ANNOTATION.rewrapCount], name),
    ...optional('handledRequest', annotations[ANNOTATION.handledRequest]),
  };
}

function jsonList(text: string, what: string): unknown[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new InvalidObjectError(`${what} is not JSON: ${text}`);
  }
  if (!Array.isArray(value)) throw new InvalidObjectError(`${what} is not a JSON list: ${text}`);
  return value;
}

function optional<K extends string>(key: K, value: string | undefined): { [key in K]?: string } {
  return value === undefined ? {} : ({ [key]: value } as { [key in K]: string });
}

function rewrapCountOf(text: string | undefined, secretName: string): { rewrapCount?: RewrapSummary } {
  if (text === undefined) return {};
  const rewrapCount = parseRewrapSummary(text);
  if (!rewrapCount) throw new InvalidObjectError(`Secret ${secretName}: ${ANNOTATION.rewrapCount} is not a rewrap count: ${text}`);
  return { rewrapCount };
}

/** The Secret holding `keys`: its other metadata (resourceVersion included) kept, so writing it back is a compare-and-swap. */
export function secretWith(secret: V1Secret, keys: KeySet): V1Secret {
  const rotatingFrom = [
    ...(keys.incomingMasterKey === undefined ? [] : [keys.incomingMasterKey]),
    ...keys.retiringMasterKeys.map((retiring) => retiring.key),
  ];
  const encode = (text: string) => Buffer.from(text, 'utf8').toString('base64');
  const optionalKeys: readonly string[] = [GENERATED_KEYS.secretsMasterKeyRotatingFrom, GENERATED_KEYS.secretKeyPrevious];
  const data: Record<string, string> = {
    ...without(secret.data, optionalKeys),
    [GENERATED_KEYS.secretsMasterKey]: encode(keys.masterKey),
    [GENERATED_KEYS.secretKey]: encode(keys.signingKey),
  };
  if (rotatingFrom.length > 0) data[GENERATED_KEYS.secretsMasterKeyRotatingFrom] = encode(rotatingFrom.join(','));
  if (keys.previousSigningKey) data[GENERATED_KEYS.secretKeyPrevious] = encode(keys.previousSigningKey.key);

  const annotations: Record<string, string> = without(secret.metadata?.annotations, Object.values(ANNOTATION));
  Object.assign(annotations, {
    [ANNOTATION.phase]: keys.phase,
    [ANNOTATION.revision]: String(keys.revision),
    [ANNOTATION.rotatedAt]: keys.rotatedAt.toISOString(),
    [ANNOTATION.retiring]: JSON.stringify(keys.retiringMasterKeys.map((retiring) => retiring.removeAfter?.toISOString() ?? null)),
  });
  if (keys.previousSigningKey?.removeAfter)
    annotations[ANNOTATION.previousSigningKeyRemoveAfter] = keys.previousSigningKey.removeAfter.toISOString();
  if (keys.rewrappedTo !== undefined) annotations[ANNOTATION.rewrappedTo] = keys.rewrappedTo;
  if (keys.rewrapCount !== undefined) annotations[ANNOTATION.rewrapCount] = JSON.stringify(keys.rewrapCount);
  if (keys.handledRequest !== undefined) annotations[ANNOTATION.handledRequest] = keys.handledRequest;
  const { stringData: _stringData, ...rest } = secret;
  return { ...rest, metadata: { ...secret.metadata, annotations }, data };
}

function without(record: Record<string, string> | undefined, keys: readonly string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(record ?? {}).filter(([key]) => !keys.includes(key)));
}
