import { masterKeyIdOf, type RewrapSummary } from '@shop/runtime';
import type { JobOutcome } from '../kube/workload-state.ts';
import type { KeySet } from './key-set.ts';

export interface RotationPolicy {
  /** spec.keyRotation.enabled: rotate every interval. */
  readonly enabled: boolean;
  readonly intervalMs: number;
  readonly retentionMs: number;
  /** SECRETS_MASTER_KEY is generated (spec.secrets.secretsMasterKey unset). */
  readonly rotatesMasterKey: boolean;
  /** SECRET_KEY is generated (spec.secrets.secretKey unset). */
  readonly rotatesSigningKey: boolean;
}

export interface RotationFacts {
  readonly now: Date;
  /** The Shop's rotate-keys annotation. */
  readonly requested: string | undefined;
  /** In Rewrapping: the rewrap Job of this revision, undefined while it does not exist. */
  readonly rewrap: JobOutcome | undefined;
  /** In Rewrapping, once that Job has ended: the rows per key id its pod counted, when it said. */
  readonly rewrapCount: RewrapSummary | undefined;
  /** Keys to start a rotation with; used only when one starts. */
  readonly fresh: { readonly masterKey: string; readonly signingKey: string };
}

export type RotationAction =
  /** Write these keys to the Secret. */
  | { readonly kind: 'write'; readonly keys: KeySet }
  /** Create the rewrap Job of this revision. */
  | { readonly kind: 'rewrap' }
  /** Nothing to do until then (or until something watched changes). */
  | { readonly kind: 'wait'; readonly until: Date | undefined };

/**
 * The next step of the rotation. Called only once everything the Secret's current revision names is
 * rolled out to the api, the worker and the consumer (the reconcile step runs after them), so every
 * phase ends by moving on. A master key leaves SECRETS_MASTER_KEY_ROTATING_FROM only when its
 * retention has passed and a rewrap Job completed for the current key, which it does only when no
 * stored secret is left under any other key.
 */
export function nextRotationAction(keys: KeySet, policy: RotationPolicy, facts: RotationFacts): RotationAction {
  const { now } = facts;
  switch (keys.phase) {
    case 'Adding':
      return { kind: 'write', keys: switched(keys, policy, now) };
    case 'Switching':
      return { kind: 'write', keys: { ...keys, phase: policy.rotatesMasterKey ? 'Rewrapping' : 'Settled' } };
    case 'Rewrapping':
      if (facts.rewrap === undefined) return { kind: 'rewrap' };
      if (facts.rewrap.state !== 'complete') return { kind: 'wait', until: undefined };
      return { kind: 'write', keys: rewrapped(keys, facts.rewrapCount) };
    case 'Settled': {
      const kept = withoutExpired(keys, now);
      if (kept !== keys) return { kind: 'write', keys: kept };
      if (rotationRequested(keys, facts.requested) || (policy.enabled && now >= nextRotationAt(keys, policy))) {
        return { kind: 'write', keys: adding(keys, policy, facts) };
      }
      return { kind: 'wait', until: nextWake(keys, policy, now) };
    }
  }
}

const rotationRequested = (keys: KeySet, requested: string | undefined): boolean => requested !== undefined && requested !== keys.handledRequest;

export const nextRotationAt = (keys: KeySet, policy: RotationPolicy): Date => new Date(keys.rotatedAt.getTime() + policy.intervalMs);

/** Whether a rewrap Job completed for the current master key: then no stored secret is under a retiring one. */
export const isRewrapped = (keys: KeySet): boolean => keys.rewrappedTo === masterKeyIdOf(Buffer.from(keys.masterKey, 'base64'));

/** (a) The new keys are added for reading only: SECRETS_MASTER_KEY_ROTATING_FROM and SECRET_KEY_PREVIOUS. */
function adding(keys: KeySet, policy: RotationPolicy, facts: RotationFacts): KeySet {
  return {
    ...keys,
    phase: 'Adding',
    revision: keys.revision + 1,
    ...(policy.rotatesMasterKey ? { incomingMasterKey: facts.fresh.masterKey } : {}),
    // The signing key before the current one goes now: its tokens have expired a rotation ago.
    ...(policy.rotatesSigningKey ? { previousSigningKey: { key: facts.fresh.signingKey } } : {}),
    ...(facts.requested === undefined ? {} : { handledRequest: facts.requested }),
  };
}

/** (b) The new keys become current; the old ones are kept for reading until their retention ends. */
function switched(keys: KeySet, policy: RotationPolicy, now: Date): KeySet {
  const removeAfter = new Date(now.getTime() + policy.retentionMs);
  const { incomingMasterKey, previousSigningKey, ...rest } = keys;
  const master = incomingMasterKey === undefined ? {} : { masterKey: incomingMasterKey, retiringMasterKeys: [{ key: keys.masterKey, removeAfter }, ...keys.retiringMasterKeys] };
  // In Adding, SECRET_KEY_PREVIOUS holds the incoming signing key.
  const incomingSigningKey = policy.rotatesSigningKey ? previousSigningKey : undefined;
  const signing = incomingSigningKey
    ? { signingKey: incomingSigningKey.key, previousSigningKey: { key: keys.signingKey, removeAfter } }
    : previousSigningKey && { previousSigningKey };
  return { ...rest, phase: 'Switching', revision: keys.revision + 1, rotatedAt: now, ...master, ...signing };
}

/** (c) done: every stored secret is under the current master key, as the Job's pod counted (the count of an earlier rewrap would be stale). */
function rewrapped(keys: KeySet, count: RewrapSummary | undefined): KeySet {
  const { rewrapCount: _earlier, ...rest } = keys;
  return { ...rest, phase: 'Settled', rewrappedTo: masterKeyIdOf(Buffer.from(keys.masterKey, 'base64')), ...(count ? { rewrapCount: count } : {}) };
}

/** (d) The keys whose retention has passed, removed: master keys only once a rewrap left no rows under them. */
function withoutExpired(keys: KeySet, now: Date): KeySet {
  const masterKeysGo = isRewrapped(keys) ? keys.retiringMasterKeys.filter((retiring) => retiring.removeAfter <= now) : [];
  const signingKeyGoes = keys.previousSigningKey?.removeAfter !== undefined && keys.previousSigningKey.removeAfter <= now;
  if (masterKeysGo.length === 0 && !signingKeyGoes) return keys;
  const { previousSigningKey, ...rest } = keys;
  return {
    ...rest,
    revision: keys.revision + 1,
    retiringMasterKeys: keys.retiringMasterKeys.filter((retiring) => !masterKeysGo.includes(retiring)),
    ...(signingKeyGoes || previousSigningKey === undefined ? {} : { previousSigningKey }),
  };
}

/** The earliest of the next scheduled rotation and the end of a retention still to come. */
function nextWake(keys: KeySet, policy: RotationPolicy, now: Date): Date | undefined {
  const times = [
    ...(policy.enabled ? [nextRotationAt(keys, policy)] : []),
    ...keys.retiringMasterKeys.map((retiring) => retiring.removeAfter),
    ...(keys.previousSigningKey?.removeAfter ? [keys.previousSigningKey.removeAfter] : []),
  ].filter((time) => time > now);
  return times.length === 0 ? undefined : new Date(Math.min(...times.map((time) => time.getTime())));
}
