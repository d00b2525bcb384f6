import { randomBytes } from 'node:crypto';
import { masterKeyIdOf } from '@shop/runtime';
import { describe, expect, it } from 'vitest';
import { durationMs } from '../src/keys/durations.ts';
import type { KeySet } from '../src/keys/key-set.ts';
import {
  nextRotationAction,
  OLDER_PODS_RECHECK_MS,
  type RotationAction,
  type RotationFacts,
  type RotationPolicy,
} from '../src/keys/rotation-phases.ts';

const HOUR = 3_600_000;
const t0 = new Date('2026-03-01T00:00:00Z');
const at = (hours: number) => new Date(t0.getTime() + hours * HOUR);
const key = () => randomBytes(32).toString('base64');
const idOf = (base64: string) => masterKeyIdOf(Buffer.from(base64, 'base64'));

const policy: RotationPolicy = {
  enabled: true,
  intervalMs: 720 * HOUR,
  retentionMs: 336 * HOUR,
  rotatesMasterKey: true,
  rotatesSigningKey: true,
};
const settled: KeySet = { phase: 'Settled', revision: 0, masterKey: key(), retiringMasterKeys: [], signingKey: 'signing-1', rotatedAt: t0 };
const fresh = { masterKey: key(), signingKey: 'signing-2' };
const facts = (now: Date, extra: Partial<RotationFacts> = {}): RotationFacts => ({
  now,
  requested: undefined,
  rewrap: undefined,
  rewrapCount: undefined,
  olderPods: [],
  removalCheck: undefined,
  fresh,
  ...extra,
});
/** The removal check completed, its pod having counted `rowsPerKeyId`. */
const checked = (rowsPerKeyId: Record<string, number>): RotationFacts['removalCheck'] => ({
  outcome: { state: 'complete' },
  count: { countedAt: t0.toISOString(), rowsPerKeyId },
});

function written(action: RotationAction): KeySet {
  if (action.kind !== 'write') throw new Error(`expected a write, got ${JSON.stringify(action)}`);
  return action.keys;
}

/** One whole rotation from `start`, the rewrap Job completing, as the reconcile step would drive it. */
function rotate(start: KeySet, now: Date, rotation = policy): KeySet {
  const adding = written(nextRotationAction(start, rotation, facts(now)));
  const switching = written(nextRotationAction(adding, rotation, facts(now)));
  const rewrapping = written(nextRotationAction(switching, rotation, facts(now)));
  return written(nextRotationAction(rewrapping, rotation, facts(now, { rewrap: { state: 'complete' } })));
}

describe('the key rotation phases', () => {
  it('wait for the interval, then add the new keys for reading only', () => {
    expect(nextRotationAction(settled, policy, facts(at(719)))).toEqual({ kind: 'wait', until: at(720) });
    const adding = written(nextRotationAction(settled, policy, facts(at(720))));
    expect(adding).toMatchObject({
      phase: 'Adding',
      revision: 1,
      masterKey: settled.masterKey,
      incomingMasterKey: fresh.masterKey,
      signingKey: 'signing-1',
    });
    expect(adding.previousSigningKey).toEqual({ key: 'signing-2' });
  });

  it('then make them current and keep the old ones until the retention ends, counted from the end of the rollout of the switch', () => {
    const adding = written(nextRotationAction(settled, policy, facts(at(720))));
    const switching = written(nextRotationAction(adding, policy, facts(at(721))));
    expect(switching).toMatchObject({
      phase: 'Switching',
      revision: 2,
      masterKey: fresh.masterKey,
      signingKey: 'signing-2',
      rotatedAt: at(721),
    });
    expect(switching.incomingMasterKey).toBeUndefined();
    // The rollout of the switch takes 9 hours: pods of the older revision use the old keys as current until it ends.
    const rolledOut = written(nextRotationAction(switching, policy, facts(at(730))));
    expect(rolledOut.retiringMasterKeys).toEqual([{ key: settled.masterKey, removeAfter: at(730 + 336) }]);
    expect(rolledOut.previousSigningKey).toEqual({ key: 'signing-1', removeAfter: at(730 + 336) });
    const signingOnly = { ...policy, rotatesMasterKey: false };
    const signingSwitched = written(
      nextRotationAction(written(nextRotationAction(settled, signingOnly, facts(at(720)))), signingOnly, facts(at(721))),
    );
    expect(written(nextRotationAction(signingSwitched, signingOnly, facts(at(730)))).previousSigningKey).toEqual({
      key: 'signing-1',
      removeAfter: at(730 + 336),
    });
  });

  it('then run the rewrap Job and settle once it completed, recording the key it moved every row to and the rows its pod counted', () => {
    const switching = written(nextRotationAction(written(nextRotationAction(settled, policy, facts(at(720)))), policy, facts(at(720))));
    const rewrapping = written(nextRotationAction(switching, policy, facts(at(721))));
    expect(rewrapping).toMatchObject({ phase: 'Rewrapping', revision: 2 });
    expect(nextRotationAction(rewrapping, policy, facts(at(721)))).toEqual({ kind: 'rewrap' });
    expect(nextRotationAction(rewrapping, policy, facts(at(721), { rewrap: { state: 'running' } }))).toEqual({
      kind: 'wait',
      until: undefined,
    });
    expect(
      nextRotationAction(
        rewrapping,
        policy,
        facts(at(721), { rewrap: { state: 'failed', reason: 'BackoffLimitExceeded', message: 'exit 1' } }),
      ),
    ).toEqual({
      kind: 'wait',
      until: undefined,
    });
    const count = { countedAt: at(722).toISOString(), rowsPerKeyId: { [idOf(fresh.masterKey)]: 12 } };
    const settledAgain = written(
      nextRotationAction(rewrapping, policy, facts(at(722), { rewrap: { state: 'complete' }, rewrapCount: count })),
    );
    expect(settledAgain).toMatchObject({ phase: 'Settled', revision: 2, rewrappedTo: idOf(fresh.masterKey), rewrapCount: count });
    // The next rewrap's pod gone before the operator read it: no count rather than the last one's.
    const rewrappingAgain: KeySet = { ...settledAgain, phase: 'Rewrapping', revision: 4 };
    expect(
      written(nextRotationAction(rewrappingAgain, policy, facts(at(1501), { rewrap: { state: 'complete' } }))).rewrapCount,
    ).toBeUndefined();
  });

  it('remove an old master key only once its retention has passed, a rewrap moved every row off it, and then a removal check counted none under it', () => {
    const rotated = rotate(settled, at(720));
    expect(nextRotationAction(rotated, policy, facts(at(720 + 335)))).toEqual({ kind: 'wait', until: at(720 + 336) });
    const due = at(720 + 336);
    expect(nextRotationAction(rotated, policy, facts(due))).toEqual({ kind: 'check' });
    expect(nextRotationAction(rotated, policy, facts(due, { removalCheck: { outcome: { state: 'running' }, count: undefined } }))).toEqual({
      kind: 'wait',
      until: undefined,
      blocked: { kind: 'checkRunning' },
    });
    // With the previous signing key gone already (a stuck check does not hold it, below).
    const { previousSigningKey: _due, ...masterKeyOnly } = rotated;
    const failed = { state: 'failed', reason: 'BackoffLimitExceeded', message: 'exit 1' } as const;
    expect(nextRotationAction(masterKeyOnly, policy, facts(due, { removalCheck: { outcome: failed, count: undefined } }))).toMatchObject({
      kind: 'wait',
      blocked: { kind: 'checkFailed' },
    });
    expect(
      nextRotationAction(masterKeyOnly, policy, facts(due, { removalCheck: { outcome: { state: 'complete' }, count: undefined } })),
    ).toMatchObject({ kind: 'wait', blocked: { kind: 'notCounted' } });
    // A row written under the old key after the rewrap (by a pod that was still terminating): kept, whatever the Job's exit said.
    const rowsLeft = checked({ [idOf(settled.masterKey)]: 1, [idOf(fresh.masterKey)]: 40 });
    expect(nextRotationAction(masterKeyOnly, policy, facts(due, { removalCheck: rowsLeft }))).toEqual({
      kind: 'wait',
      until: undefined,
      blocked: { kind: 'rowsRemain', rowsPerKeyId: { [idOf(settled.masterKey)]: 1 } },
    });
    // The previous signing key does not wait for a stuck check: it goes alone.
    const signingKeyGone = written(nextRotationAction(rotated, policy, facts(due, { removalCheck: rowsLeft })));
    expect(signingKeyGone).toMatchObject({ revision: 3, retiringMasterKeys: rotated.retiringMasterKeys });
    expect(signingKeyGone.previousSigningKey).toBeUndefined();
    expect(nextRotationAction(signingKeyGone, policy, facts(due, { removalCheck: rowsLeft }))).toMatchObject({
      kind: 'wait',
      blocked: { kind: 'rowsRemain' },
    });
    const clear = checked({ [idOf(fresh.masterKey)]: 41 });
    const removed = written(nextRotationAction(rotated, policy, facts(due, { removalCheck: clear })));
    expect(removed).toMatchObject({
      phase: 'Settled',
      revision: 3,
      retiringMasterKeys: [],
      masterKey: fresh.masterKey,
      rewrapCount: clear?.count,
    });
    expect(removed.previousSigningKey).toBeUndefined();

    // The same master keys without a completed rewrap: the retention alone removes nothing.
    const { rewrappedTo: _rewrapped, previousSigningKey: _signing, ...notRewrapped } = rotated;
    const kept = nextRotationAction(notRewrapped, policy, facts(at(720 + 400)));
    expect(kept).toEqual({ kind: 'wait', until: at(720 + 720) });
  });

  it('start a rotation on a new value of the rotate-keys annotation, once per value, also with scheduled rotation off', () => {
    const off = { ...policy, enabled: false };
    expect(nextRotationAction(settled, off, facts(at(10_000)))).toEqual({ kind: 'wait', until: undefined });
    const requested = written(nextRotationAction(settled, off, facts(at(1), { requested: 'now-1' })));
    expect(requested).toMatchObject({ phase: 'Adding', handledRequest: 'now-1' });
    const done = { ...settled, handledRequest: 'now-1' };
    expect(nextRotationAction(done, off, facts(at(2), { requested: 'now-1' }))).toEqual({ kind: 'wait', until: undefined });
  });

  it('remove no key while a pod of an older keys revision is left, Terminating ones included', () => {
    const rotated = rotate(settled, at(720));
    const due = at(720 + 336);
    const olderPods = ['shop-api-6b7f-x2k9p'];
    const held = { kind: 'wait', until: new Date(due.getTime() + OLDER_PODS_RECHECK_MS), blocked: { kind: 'olderPods', pods: olderPods } };
    expect(nextRotationAction(rotated, policy, facts(due, { olderPods }))).toEqual(held);
    // Not even with a removal check that counted no row: a pod of an older revision may still write under the old key.
    expect(nextRotationAction(rotated, policy, facts(due, { olderPods, removalCheck: checked({}) }))).toEqual(held);
    const signingOnly = { ...policy, rotatesMasterKey: false };
    const adding = written(nextRotationAction(settled, signingOnly, facts(at(720))));
    const signingRotated = written(
      nextRotationAction(written(nextRotationAction(adding, signingOnly, facts(at(720)))), signingOnly, facts(at(720))),
    );
    expect(nextRotationAction(signingRotated, signingOnly, facts(due, { olderPods }))).toEqual(held);
    expect(written(nextRotationAction(signingRotated, signingOnly, facts(due))).previousSigningKey).toBeUndefined();
  });

  it('keep the previous signing key until its own retention ends when a rotation is requested during it, then rotate', () => {
    const rotated = rotate(settled, at(720));
    const retentionEnds = at(720 + 336);
    expect(rotated.previousSigningKey).toEqual({ key: 'signing-1', removeAfter: retentionEnds });
    const request = { requested: 'again', fresh: { masterKey: key(), signingKey: 'signing-3' } };
    expect(nextRotationAction(rotated, policy, facts(at(730), request))).toEqual({
      kind: 'wait',
      until: retentionEnds,
      blocked: { kind: 'signingKeyRetained', removeAfter: retentionEnds },
    });
    // Scheduled rotation too: the next one is due once SECRET_KEY_PREVIOUS is free.
    const hourly = { ...policy, intervalMs: HOUR };
    expect(nextRotationAction(rotated, hourly, facts(at(730)))).toMatchObject({ kind: 'wait', until: retentionEnds });
    const removed = written(nextRotationAction(rotated, policy, facts(retentionEnds, { ...request, removalCheck: checked({}) })));
    expect(removed.previousSigningKey).toBeUndefined();
    const adding = written(nextRotationAction(removed, policy, facts(retentionEnds, request)));
    expect(adding).toMatchObject({
      phase: 'Adding',
      signingKey: 'signing-2',
      previousSigningKey: { key: 'signing-3' },
      handledRequest: 'again',
    });
  });

  it('stack retiring master keys when a rotation comes before their retention ends, newest first', () => {
    const short = { ...policy, intervalMs: 24 * HOUR, rotatesSigningKey: false };
    const first = rotate(settled, at(24), short);
    const second = written(nextRotationAction(first, short, facts(at(48), { fresh: { masterKey: key(), signingKey: 'signing-3' } })));
    const switched = written(nextRotationAction(second, short, facts(at(48))));
    expect(switched.retiringMasterKeys.map((retiring) => retiring.key)).toEqual([fresh.masterKey, settled.masterKey]);
  });

  it('rotate only the generated keys: a supplied master key is left alone and needs no rewrap', () => {
    const signingOnly = { ...policy, rotatesMasterKey: false };
    const adding = written(nextRotationAction(settled, signingOnly, facts(at(720))));
    expect(adding.incomingMasterKey).toBeUndefined();
    const switching = written(nextRotationAction(adding, signingOnly, facts(at(720))));
    expect(switching).toMatchObject({ masterKey: settled.masterKey, retiringMasterKeys: [], signingKey: 'signing-2' });
    expect(written(nextRotationAction(switching, signingOnly, facts(at(720))))).toMatchObject({ phase: 'Settled' });
  });
});

describe('the keyRotation durations', () => {
  it('are positive whole hours, minutes or seconds', () => {
    expect([durationMs('720h'), durationMs('90m'), durationMs('30s')]).toEqual([720 * HOUR, 90 * 60_000, 30_000]);
    for (const invalid of ['0h', '1d', '1.5h', 'h', '']) expect(() => durationMs(invalid)).toThrow(`"${invalid}" is not a duration`);
  });
});
