import { masterKeyIdOf, type RewrapSummary } from '@shop/runtime';
import type { JobOutcome } from '../kube/workload-state.ts';
import type { KeySet, RetiringKey } from './key-set.ts';

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
  /**
   * In Settled, once a key's retention has ended (keysDue): the pods of the api, the worker and the
   * consumer started with an older keys revision, Terminating ones included.
   */
  readonly olderPods: readonly string[];
  /**
   * In Settled, once a master key is due: the removal check of those keys (a rewrap Job run again,
   * created only once no pod of an older revision is left), undefined while it does not exist.
   */
  readonly removalCheck: { readonly outcome: JobOutcome; readonly count: RewrapSummary | undefined } | undefined;
  /** Keys to start a rotation with; used only when one starts. */
  readonly fresh: { readonly masterKey: string; readonly signingKey: string };
}

/** Why a key whose retention has ended, or a rotation that is due, waits. */
export type RotationBlock =
  | { readonly kind: 'olderPods'; readonly pods: readonly string[] }
  | { readonly kind: 'checkRunning' }
  | { readonly kind: 'checkFailed'; readonly reason: string; readonly message: string }
  | { readonly kind: 'notCounted' }
  | { readonly kind: 'rowsRemain'; readonly rowsPerKeyId: Readonly<Record<string, number>> }
  | { readonly kind: 'signingKeyRetained'; readonly removeAfter: Date };

export type RotationAction =
  /** Write these keys to the Secret. */
  | { readonly kind: 'write'; readonly keys: KeySet }
  /** Create the rewrap Job of this revision. */
  | { readonly kind: 'rewrap' }
  /** Create the removal check Job of the master keys due. */
  | { readonly kind: 'check' }
  /** Nothing to do until then (or until something watched changes); `blocked` says why when something is held back. */
  | { readonly kind: 'wait'; readonly until: Date | undefined; readonly blocked?: RotationBlock };

/** Pods are not watched: while one of an older keys revision is left, the Shop is looked at again this often. */
export const OLDER_PODS_RECHECK_MS = 5_000;

/**
 * The next step of the rotation. Called only once everything the Secret's current revision names is
 * rolled out to the api, the worker and the consumer (the reconcile step runs after them), so every
 * phase ends by moving on. Retention is counted from the end of the rollout of the switch. A key
 * whose retention has ended is removed only once no pod of an older keys revision is left
 * (Terminating ones included); a master key only once a rewrap completed for the current key and,
 * after that, a removal check (the rewrap run again) counted no row under it. A rotation starts only
 * once SECRET_KEY_PREVIOUS is free: tokens the previous signing key signed verify until its own
 * retention ends.
 */
export function nextRotationAction(keys: KeySet, policy: RotationPolicy, facts: RotationFacts): RotationAction {
  const { now } = facts;
  switch (keys.phase) {
    case 'Adding':
      return { kind: 'write', keys: switched(keys, policy, now) };
    case 'Switching':
      return { kind: 'write', keys: { ...retentionStarted(keys, policy, now), phase: policy.rotatesMasterKey ? 'Rewrapping' : 'Settled' } };
    case 'Rewrapping':
      if (facts.rewrap === undefined) return { kind: 'rewrap' };
      if (facts.rewrap.state !== 'complete') return { kind: 'wait', until: undefined };
      return { kind: 'write', keys: rewrapped(keys, facts.rewrapCount) };
    case 'Settled': {
      const due = keysDue(keys, now);
      if (due.masterKeys.length > 0 || due.signingKey) return removal(keys, due, facts);
      if (rotationRequested(keys, facts.requested) || (policy.enabled && now >= nextRotationAt(keys, policy))) {
        const retained = policy.rotatesSigningKey ? keys.previousSigningKey?.removeAfter : undefined;
        if (retained) return { kind: 'wait', until: retained, blocked: { kind: 'signingKeyRetained', removeAfter: retained } };
        return { kind: 'write', keys: adding(keys, policy, facts) };
      }
      return { kind: 'wait', until: nextWake(keys, policy, now) };
    }
  }
}

const rotationRequested = (keys: KeySet, requested: string | undefined): boolean =>
  requested !== undefined && requested !== keys.handledRequest;

/**
 * When the next scheduled rotation starts: the interval after the current keys became current, and
 * not before the previous signing key's retention ends (it holds the only SECRET_KEY_PREVIOUS).
 */
export function nextRotationAt(keys: KeySet, policy: RotationPolicy): Date {
  const scheduled = keys.rotatedAt.getTime() + policy.intervalMs;
  const retained = policy.rotatesSigningKey && keys.phase === 'Settled' ? (keys.previousSigningKey?.removeAfter?.getTime() ?? 0) : 0;
  return new Date(Math.max(scheduled, retained));
}

/** Whether a rewrap Job completed for the current master key: then no stored secret is under a retiring one. */
export const isRewrapped = (keys: KeySet): boolean => keys.rewrappedTo === masterKeyIdOf(Buffer.from(keys.masterKey, 'base64'));

export interface KeysDue {
  /** Retiring master keys whose retention has ended, once a rewrap completed for the current key. */
  readonly masterKeys: readonly RetiringKey[];
  /** The previous signing key's retention has ended. */
  readonly signingKey: boolean;
}

/** In Settled: the keys whose retention has ended, to be removed once nothing holds them any more. */
export function keysDue(keys: KeySet, now: Date): KeysDue {
  const ended = (removeAfter: Date | undefined) => removeAfter !== undefined && removeAfter <= now;
  if (keys.phase !== 'Settled') return { masterKeys: [], signingKey: false };
  return {
    masterKeys: isRewrapped(keys) ? keys.retiringMasterKeys.filter((retiring) => ended(retiring.removeAfter)) : [],
    signingKey: ended(keys.previousSigningKey?.removeAfter),
  };
}

/** (a) The new keys are added for reading only: SECRETS_MASTER_KEY_ROTATING_FROM and SECRET_KEY_PREVIOUS (free: see nextRotationAction). */
function adding(keys: KeySet, policy: RotationPolicy, facts: RotationFacts): KeySet {
  return {
    ...keys,
    phase: 'Adding',
    revision: keys.revision + 1,
    ...(policy.rotatesMasterKey ? { incomingMasterKey: facts.fresh.masterKey } : {}),
    ...(policy.rotatesSigningKey ? { previousSigningKey: { key: facts.fresh.signingKey } } : {}),
    ...(facts.requested === undefined ? {} : { handledRequest: facts.requested }),
  };
}

/** (b) The new keys become current; the old ones are kept for reading, their retention starting once this is rolled out. */
function switched(keys: KeySet, policy: RotationPolicy, now: Date): KeySet {
  const { incomingMasterKey, previousSigningKey, ...rest } = keys;
  const master =
    incomingMasterKey === undefined
      ? {}
      : { masterKey: incomingMasterKey, retiringMasterKeys: [{ key: keys.masterKey }, ...keys.retiringMasterKeys] };
  // In Adding, SECRET_KEY_PREVIOUS holds the incoming signing key.
  const incomingSigningKey = policy.rotatesSigningKey ? previousSigningKey : undefined;
  const signing = incomingSigningKey
    ? { signingKey: incomingSigningKey.key, previousSigningKey: { key: keys.signingKey } }
    : previousSigningKey && { previousSigningKey };
  return { ...rest, phase: 'Switching', revision: keys.revision + 1, rotatedAt: now, ...master, ...signing };
}

/**
 * The switch is rolled out: no pod uses the old keys as current any more, so their retention starts
 * now. Until then pods of the older revision may still sign tokens and write rows with them.
 */
function retentionStarted(keys: KeySet, policy: RotationPolicy, now: Date): KeySet {
  const removeAfter = new Date(now.getTime() + policy.retentionMs);
  const { previousSigningKey } = keys;
  return {
    ...keys,
    retiringMasterKeys: keys.retiringMasterKeys.map((retiring) => (retiring.removeAfter ? retiring : { ...retiring, removeAfter })),
    ...(previousSigningKey && !previousSigningKey.removeAfter ? { previousSigningKey: { ...previousSigningKey, removeAfter } } : {}),
  };
}

/** (c) done: every stored secret is under the current master key, as the Job's pod counted (the count of an earlier rewrap would be stale). */
function rewrapped(keys: KeySet, count: RewrapSummary | undefined): KeySet {
  const { rewrapCount: _earlier, ...rest } = keys;
  return {
    ...rest,
    phase: 'Settled',
    rewrappedTo: masterKeyIdOf(Buffer.from(keys.masterKey, 'base64')),
    ...(count ? { rewrapCount: count } : {}),
  };
}

/**
 * (d) The keys due removed, once no pod of an older revision is left: the signing key then; master
 * keys once the removal check, created after that, completed and counted no row under them.
 * A check that failed or found rows holds only the master keys.
 */
function removal(keys: KeySet, due: KeysDue, facts: RotationFacts): RotationAction {
  if (facts.olderPods.length > 0) {
    return {
      kind: 'wait',
      until: new Date(facts.now.getTime() + OLDER_PODS_RECHECK_MS),
      blocked: { kind: 'olderPods', pods: facts.olderPods },
    };
  }
  const check = due.masterKeys.length > 0 ? masterKeysCheck(due.masterKeys, facts.removalCheck) : undefined;
  if (check === 'create') return { kind: 'check' };
  // A running check is waited for, so that both keys go in one rollout; a stuck one does not hold the signing key.
  if (check?.kind === 'blocked' && (check.block.kind === 'checkRunning' || !due.signingKey))
    return { kind: 'wait', until: undefined, blocked: check.block };
  const masterKeysGo = check?.kind === 'clear' ? due.masterKeys : [];
  const { previousSigningKey, rewrapCount, ...rest } = keys;
  const count = check?.kind === 'clear' ? check.count : rewrapCount;
  return {
    kind: 'write',
    keys: {
      ...rest,
      revision: keys.revision + 1,
      retiringMasterKeys: keys.retiringMasterKeys.filter((retiring) => !masterKeysGo.includes(retiring)),
      ...(due.signingKey || previousSigningKey === undefined ? {} : { previousSigningKey }),
      ...(count ? { rewrapCount: count } : {}),
    },
  };
}

type MasterKeysCheck =
  'create' | { readonly kind: 'clear'; readonly count: RewrapSummary } | { readonly kind: 'blocked'; readonly block: RotationBlock };

/** What the removal check says of the master keys due: only a count of its own, with no row under any of them, clears them. */
function masterKeysCheck(due: readonly RetiringKey[], check: RotationFacts['removalCheck']): MasterKeysCheck {
  if (check === undefined) return 'create';
  const { outcome, count } = check;
  if (outcome.state === 'running') return { kind: 'blocked', block: { kind: 'checkRunning' } };
  if (outcome.state === 'failed')
    return { kind: 'blocked', block: { kind: 'checkFailed', reason: outcome.reason, message: outcome.message } };
  if (count === undefined) return { kind: 'blocked', block: { kind: 'notCounted' } };
  const left: Record<string, number> = {};
  for (const retiring of due) {
    const id = masterKeyIdOf(Buffer.from(retiring.key, 'base64'));
    const rows = count.rowsPerKeyId[id] ?? 0;
    if (rows > 0) left[id] = rows;
  }
  return Object.keys(left).length > 0 ? { kind: 'blocked', block: { kind: 'rowsRemain', rowsPerKeyId: left } } : { kind: 'clear', count };
}

/** The earliest of the next scheduled rotation and the end of a retention still to come. */
function nextWake(keys: KeySet, policy: RotationPolicy, now: Date): Date | undefined {
  const times = [
    ...(policy.enabled ? [nextRotationAt(keys, policy)] : []),
    ...keys.retiringMasterKeys.flatMap((retiring) => retiring.removeAfter ?? []),
    ...(keys.previousSigningKey?.removeAfter ? [keys.previousSigningKey.removeAfter] : []),
  ].filter((time) => time > now);
  return times.length === 0 ? undefined : new Date(Math.min(...times.map((time) => time.getTime())));
}
