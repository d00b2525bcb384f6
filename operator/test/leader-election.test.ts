import { ApiException, type CoordinationV1Api, type V1Lease } from '@kubernetes/client-node';
import { afterEach, expect, it } from 'vitest';
import { LeaderElector, type LeaseTimings } from '../src/leader-election.ts';
import { disabledLogger } from '@shop/runtime';
import { eventually } from '../../test/support/wait.ts';

const TIMINGS: LeaseTimings = { leaseDurationMs: 2_000, renewDeadlineMs: 400, retryPeriodMs: 50 };

/** A Lease store in memory whose writes can be made to hang, as on an API server that stops answering. */
function fakeCoordination() {
  let lease: V1Lease | undefined;
  let version = 0;
  let hang = false;
  const pending = new Set<() => void>();
  const write = async ({ body }: { body: V1Lease }): Promise<V1Lease> => {
    if (hang) await new Promise<void>((resolve) => pending.add(resolve));
    version += 1;
    lease = { ...body, metadata: { ...body.metadata, resourceVersion: String(version) } };
    return lease;
  };
  const api = {
    readNamespacedLease: async () => {
      if (!lease) throw new ApiException(404, 'not found', {}, {});
      return lease;
    },
    createNamespacedLease: write,
    replaceNamespacedLease: write,
  };
  return {
    api: api as unknown as CoordinationV1Api,
    hangWrites: () => void (hang = true),
    answerWrites: () => {
      hang = false;
      for (const resolve of pending) resolve();
      pending.clear();
    },
  };
}

const electors: LeaderElector[] = [];
afterEach(async () => {
  await Promise.all(electors.splice(0).map((elector) => elector.stop()));
});

it('stops acting at its renew deadline while a renewal hangs, without waiting for the answer', async () => {
  const coordination = fakeCoordination();
  const transitions: Array<{ leading: boolean; at: number }> = [];
  const elector = new LeaderElector({
    coordination: coordination.api,
    namespace: 'ns',
    name: 'lease',
    identity: 'me',
    timings: TIMINGS,
    onStartedLeading: async () => void transitions.push({ leading: true, at: Date.now() }),
    onStoppedLeading: async () => void transitions.push({ leading: false, at: Date.now() }),
    logger: disabledLogger(),
  });
  electors.push(elector);
  elector.start();
  await eventually(async () => expect(elector.isLeader()).toBe(true));

  coordination.hangWrites();
  const hungAt = Date.now();
  await eventually(async () => expect(elector.isLeader()).toBe(false), { timeoutMs: 5_000 });
  const stoppedAt = transitions.find((transition) => !transition.leading)?.at ?? Number.NaN;
  // By the renew deadline after the last renewal (before the hang), not when the request ends.
  expect(stoppedAt - hungAt).toBeLessThanOrEqual(TIMINGS.renewDeadlineMs + 200);

  // Answered again, it still holds the Lease (nobody took it), so it leads again.
  coordination.answerWrites();
  await eventually(async () => expect(elector.isLeader()).toBe(true), { timeoutMs: 5_000 });
});
