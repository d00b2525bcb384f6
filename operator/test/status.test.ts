import type { ShopStatus } from '@shop/cdk8s';
import { describe, expect, it } from 'vitest';
import type { ConditionReport, ConditionType } from '../src/reconcile/conditions.ts';
import { transitions } from '../src/reconcile/events.ts';
import { nextStatus, statusChanged, type Observation } from '../src/reconcile/status.ts';

const migrating: Observation = {
  generation: 1,
  phase: 'Migrating',
  message: 'Job shop-migrate-1-0-0 is applying the migrations of 1.0.0',
  migratedVersion: undefined,
  conditions: new Map<ConditionType, ConditionReport>([
    ['Ready', { status: 'False', reason: 'MigrationRunning', message: 'running' }],
    ['Degraded', { status: 'False', reason: 'NoFailure', message: 'nothing failed' }],
    ['MigrationsApplied', { status: 'False', reason: 'MigrationRunning', message: 'running' }],
    ['ApiAvailable', { status: 'False', reason: 'MigrationRunning', message: 'running' }],
    ['WorkerAvailable', { status: 'False', reason: 'MigrationRunning', message: 'running' }],
    ['ConsumerAvailable', { status: 'False', reason: 'MigrationRunning', message: 'running' }],
    ['MonitoringProvisioned', { status: 'False', reason: 'Disabled', message: 'off' }],
    ['KeysCurrent', { status: 'False', reason: 'MigrationRunning', message: 'running' }],
  ]),
};

const deploying: Observation = {
  ...migrating,
  phase: 'Deploying',
  message: 'shop-api: 0 of 2 replicas updated',
  migratedVersion: '1.0.0',
  conditions: new Map([...migrating.conditions, ['MigrationsApplied', { status: 'True', reason: 'MigrationsComplete', message: 'done' }]]),
};

const t0 = new Date('2026-01-01T10:00:00.123Z');
const t1 = new Date('2026-01-01T10:05:00Z');

describe('nextStatus', () => {
  it('moves a condition’s lastTransitionTime only when its status changes, and stamps every condition with the generation', () => {
    const first = nextStatus(undefined, migrating, t0);
    expect(
      first.conditions?.every((condition) => condition.lastTransitionTime === '2026-01-01T10:00:00Z' && condition.observedGeneration === 1),
    ).toBe(true);

    const second = nextStatus(first, { ...deploying, generation: 2 }, t1);
    const times = Object.fromEntries(second.conditions?.map((condition) => [condition.type, condition.lastTransitionTime]) ?? []);
    expect(times).toMatchObject({
      MigrationsApplied: '2026-01-01T10:05:00Z',
      ApiAvailable: '2026-01-01T10:00:00Z',
      Ready: '2026-01-01T10:00:00Z',
    });
    expect(second.conditions?.every((condition) => condition.observedGeneration === 2)).toBe(true);
    expect(second).toMatchObject({ observedGeneration: 2, phase: 'Deploying', migratedVersion: '1.0.0' });
  });

  it('is unchanged for the same observation at a later time, so nothing is written', () => {
    const first = nextStatus(undefined, migrating, t0);
    expect(statusChanged(first, nextStatus(first, migrating, t1))).toBe(false);
    expect(statusChanged(first, nextStatus(first, { ...migrating, generation: 2 }, t1))).toBe(true);
  });

  it('ignores conditions of other types when comparing', () => {
    const first = nextStatus(undefined, migrating, t0);
    const withOther: ShopStatus = {
      ...first,
      conditions: [
        ...(first.conditions ?? []),
        { type: 'KeysCurrent', status: 'True', reason: 'Rotated', message: '', lastTransitionTime: '2026-01-01T09:00:00Z' },
      ],
    };
    expect(statusChanged(withOther, first)).toBe(false);
  });
});

describe('transitions', () => {
  it('reports a new phase and each condition whose status changed, but not conditions first appearing as False', () => {
    const first = nextStatus(undefined, migrating, t0);
    expect(transitions(undefined, first)).toEqual([{ type: 'Normal', reason: 'Migrating', message: migrating.message }]);
    expect(transitions(first, nextStatus(first, deploying, t1))).toEqual([
      { type: 'Normal', reason: 'Deploying', message: deploying.message },
      { type: 'Normal', reason: 'MigrationsApplied', message: 'True (MigrationsComplete): done' },
    ]);
    expect(transitions(first, nextStatus(first, migrating, t1))).toEqual([]);
  });

  it('warns about a failure', () => {
    const failed: Observation = {
      ...migrating,
      phase: 'Failed',
      message: 'Job failed',
      conditions: new Map([
        ...migrating.conditions,
        ['MigrationsApplied', { status: 'False', reason: 'MigrationFailed', message: 'Job failed' }],
      ]),
    };
    expect(transitions(nextStatus(undefined, migrating, t0), nextStatus(undefined, failed, t1))).toEqual([
      { type: 'Warning', reason: 'Failed', message: 'Job failed' },
    ]);
  });

  it('warns when the Shop becomes Degraded, and tells when it no longer is', () => {
    const crashing = 'api: pod shop-api-1: container api CrashLoopBackOff';
    const degraded: Observation = {
      ...deploying,
      phase: 'Degraded',
      message: crashing,
      conditions: new Map([...deploying.conditions, ['Degraded', { status: 'True', reason: 'CrashLoopBackOff', message: crashing }]]),
    };
    const before = nextStatus(undefined, deploying, t0);
    const after = nextStatus(before, degraded, t1);
    expect(transitions(before, after)).toEqual([
      { type: 'Warning', reason: 'Degraded', message: crashing },
      { type: 'Warning', reason: 'Degraded', message: `True (CrashLoopBackOff): ${crashing}` },
    ]);
    expect(transitions(after, nextStatus(after, deploying, t1))).toEqual([
      { type: 'Normal', reason: 'Deploying', message: deploying.message },
      { type: 'Normal', reason: 'Degraded', message: 'False (NoFailure): nothing failed' },
    ]);
  });
});
