import { randomBytes } from 'node:crypto';
import { masterKeyIdOf } from '@shop/runtime';
import { describe, expect, it } from 'vitest';
import { durationMs } from '../src/keys/durations.ts';
import type { KeySet } from '../src/keys/key-set.ts';
import { nextRotationAction, type RotationAction, type RotationFacts, type RotationPolicy } from '../src/keys/rotation-phases.ts';

const HOUR = 3_600_000;
const t0 = new Date('2026-03-01T00:00:00Z');
const at = (hours: number) => new Date(t0.getTime() + hours * HOUR);
const key = () => randomBytes(32).toString('base64');
const idOf = (base64: string) => masterKeyIdOf(Buffer.from(base64, 'base64'));

const policy: RotationPolicy = { enabled: true, intervalMs: 720 * HOUR, retentionMs: 336 * HOUR, rotatesMasterKey: true, rotatesSigningKey: true };
const settled: KeySet = { phase: 'Settled', revision: 0, masterKey: key(), retiringMasterKeys: [], signingKey: 'signing-1', rotatedAt: t0 };
const fresh = { masterKey: key(), signingKey: 'signing-2' };
const facts = (now: Date, extra: Partial<RotationFacts> = {}): RotationFacts => ({ now, requested: undefined, rewrap: undefined, rewrapCount: undefined, fresh, ...extra });

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
    expect(adding).toMatchObject({ phase: 'Adding', revision: 1, masterKey: settled.masterKey, incomingMasterKey: fresh.masterKey, signingKey: 'signing-1' });
    expect(adding.previousSigningKey).toEqual({ key: 'signing-2' });
  });

  it('then make them current and keep the old ones until the retention ends', () => {
    const adding = written(nextRotationAction(settled, policy, facts(at(720))));
    const switching = written(nextRotationAction(adding, policy, facts(at(721))));
    expect(switching).toMatchObject({ phase: 'Switching', revision: 2, masterKey: fresh.masterKey, signingKey: 'signing-2', rotatedAt: at(721) });
    expect(switching.incomingMasterKey).toBeUndefined();
    expect(switching.retiringMasterKeys).toEqual([{ key: settled.masterKey, removeAfter: at(721 + 336) }]);
    expect(switching.previousSigningKey).toEqual({ key: 'signing-1', removeAfter: at(721 + 336) });
  });

  it('then run the rewrap Job and settle once it completed, recording the key it moved every row to and the rows its pod counted', () => {
    const switching = written(nextRotationAction(written(nextRotationAction(settled, policy, facts(at(720)))), policy, facts(at(720))));
    const rewrapping = written(nextRotationAction(switching, policy, facts(at(721))));
    expect(rewrapping).toMatchObject({ phase: 'Rewrapping', revision: 2 });
    expect(nextRotationAction(rewrapping, policy, facts(at(721)))).toEqual({ kind: 'rewrap' });
    expect(nextRotationAction(rewrapping, policy, facts(at(721), { rewrap: { state: 'running' } }))).toEqual({ kind: 'wait', until: undefined });
    expect(nextRotationAction(rewrapping, policy, facts(at(721), { rewrap: { state: 'failed', reason: 'BackoffLimitExceeded', message: 'exit 1' } }))).toEqual({
      kind: 'wait',
      until: undefined,
    });
    const count = { countedAt: at(722).toISOString(), rowsPerKeyId: { [idOf(fresh.masterKey)]: 12 } };
    const settledAgain = written(nextRotationAction(rewrapping, policy, facts(at(722), { rewrap: { state: 'complete' }, rewrapCount: count })));
    expect(settledAgain).toMatchObject({ phase: 'Settled', revision: 2, rewrappedTo: idOf(fresh.masterKey), rewrapCount: count });
    // The next rewrap's pod gone before the operator read it: no count rather than the last one's.
    const rewrappingAgain: KeySet = { ...settledAgain, phase: 'Rewrapping', revision: 4 };
    expect(written(nextRotationAction(rewrappingAgain, policy, facts(at(1501), { rewrap: { state: 'complete' } }))).rewrapCount).toBeUndefined();
  });

  it('remove an old master key only once its retention has passed and a rewrap moved every row off it', () => {
    const rotated = rotate(settled, at(720));
    expect(nextRotationAction(rotated, policy, facts(at(720 + 335)))).toEqual({ kind: 'wait', until: at(720 + 336) });
    const removed = written(nextRotationAction(rotated, policy, facts(at(720 + 336))));
    expect(removed).toMatchObject({ phase: 'Settled', revision: 3, retiringMasterKeys: [], masterKey: fresh.masterKey });
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

  it('stack retiring keys when a rotation comes before the retention ends, newest first', () => {
    const short = { ...policy, intervalMs: 24 * HOUR };
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
