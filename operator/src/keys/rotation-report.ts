import type { ShopStatus } from '@shop/cdk8s';
import { masterKeyIdOf, type RewrapSummary } from '@shop/runtime';
import type { JobOutcome } from '../kube/workload-state.ts';
import { kubeTime, type ConditionReport } from '../reconcile/conditions.ts';
import type { KeySet } from './key-set.ts';
import { isRewrapped, nextRotationAt, type RotationBlock, type RotationPolicy } from './rotation-phases.ts';
import { rewrapJobName } from './rewrap-job.ts';

export type KeyRotationStatus = NonNullable<ShopStatus['keyRotation']>;

const keyIdOf = (key: string): string => masterKeyIdOf(Buffer.from(key, 'base64'));

/**
 * status.keyRotation: where the rotation is, the current master key id, the next rotation, the
 * retiring master keys, and the rows per key id the last rewrap Job counted (`count`: of a Job that
 * ended in this pass, else the one recorded on the Secret).
 */
export function keyRotationStatus(keys: KeySet, policy: RotationPolicy, count = keys.rewrapCount): KeyRotationStatus {
  return {
    phase: keys.phase,
    ...(policy.rotatesMasterKey ? { currentKeyId: keyIdOf(keys.masterKey) } : {}),
    ...(policy.enabled ? { nextRotationAt: kubeTime(nextRotationAt(keys, policy)) } : {}),
    retiringKeys: keys.retiringMasterKeys.map((retiring) => ({
      keyId: keyIdOf(retiring.key),
      ...(retiring.removeAfter ? { removeAfter: kubeTime(retiring.removeAfter) } : {}),
    })),
    ...(count ? rowsCounted(count) : {}),
  };
}

/** The status fields of a rewrap Job's count. */
export const rowsCounted = (count: RewrapSummary): Pick<KeyRotationStatus, 'rowsPerKeyId' | 'rowsCountedAt'> => ({
  rowsPerKeyId: { ...count.rowsPerKeyId },
  rowsCountedAt: kubeTime(new Date(count.countedAt)),
});

/** KeysCurrent: True once every stored secret is under the current master key and nothing is being rolled out for the keys. */
export function keysCurrentReport(keys: KeySet, policy: RotationPolicy, shopName: string, rewrap?: JobOutcome): ConditionReport {
  const current = policy.rotatesMasterKey ? `master key ${keyIdOf(keys.masterKey)}` : 'the generated SECRET_KEY';
  switch (keys.phase) {
    case 'Adding':
      return {
        status: 'False',
        reason: 'AddingKeys',
        message: `new keys are rolled out for reading only (revision ${keys.revision}); ${current} stays current`,
      };
    case 'Switching':
      return {
        status: 'False',
        reason: 'SwitchingKeys',
        message: `${policy.rotatesMasterKey ? current : 'a new SECRET_KEY'} becomes current (revision ${keys.revision}): the api rolls out first, then the worker and the consumer`,
      };
    case 'Rewrapping': {
      const job = rewrapJobName(shopName, keys.revision);
      if (rewrap?.state === 'failed') {
        return {
          status: 'False',
          reason: 'RewrapFailed',
          message: `Job ${job} failed (${rewrap.reason}): ${rewrap.message}; delete the Job to run it again`,
        };
      }
      return { status: 'False', reason: 'Rewrapping', message: `Job ${job} moves every stored secret to ${current}` };
    }
    case 'Settled':
      return settledReport(keys, policy, current);
  }
}

function settledReport(keys: KeySet, policy: RotationPolicy, current: string): ConditionReport {
  const schedule = policy.enabled
    ? `next rotation at ${kubeTime(nextRotationAt(keys, policy))}`
    : 'scheduled rotation is off (spec.keyRotation.enabled)';
  if (keys.retiringMasterKeys.length === 0) return { status: 'True', reason: 'KeysCurrent', message: `${current} is current; ${schedule}` };
  const retiring = keys.retiringMasterKeys
    .map(
      (key) =>
        `${keyIdOf(key.key)} (${key.removeAfter ? `retention ends ${kubeTime(key.removeAfter)}` : 'retention starts once the switch is rolled out'})`,
    )
    .join(', ');
  if (!isRewrapped(keys)) {
    return {
      status: 'False',
      reason: 'NotRewrapped',
      message: `${current} is current, but no rewrap has moved the stored secrets off ${retiring}, so they are kept; ${schedule}`,
    };
  }
  return {
    status: 'True',
    reason: 'RetiringKeys',
    message: `every stored secret is under ${current}; earlier master keys stay readable until their retention ends: ${retiring}; ${schedule}`,
  };
}

/** KeysCurrent while a key whose retention has ended, or a rotation that is due, is held back; `checkJob` is the removal check's name. */
export function blockedReport(block: RotationBlock, checkJob: string | undefined): ConditionReport {
  const job = `Job ${checkJob ?? '(removal check)'}`;
  const rerun = 'delete the Job to run the check again';
  switch (block.kind) {
    case 'olderPods':
      return {
        status: 'False',
        reason: 'OlderPodsLeft',
        message: `keys whose retention has ended are kept while pods of an older keys revision are left, Terminating ones included: ${block.pods.join(', ')}`,
      };
    case 'checkRunning':
      return {
        status: 'False',
        reason: 'CheckingRemoval',
        message: `${job} runs the rewrap again and counts the rows under the master keys whose retention has ended before they are removed`,
      };
    case 'checkFailed':
      return {
        status: 'False',
        reason: 'RemovalCheckFailed',
        message: `${job} failed (${block.reason}): ${block.message}; the master keys whose retention has ended are kept; ${rerun}`,
      };
    case 'notCounted':
      return {
        status: 'False',
        reason: 'RemovalNotCounted',
        message: `${job} completed, but no pod of it said how many rows are under each key; the master keys whose retention has ended are kept; ${rerun}`,
      };
    case 'rowsRemain': {
      const rows = Object.entries(block.rowsPerKeyId).map(([keyId, count]) => `${keyId} (${count} ${count === 1 ? 'row' : 'rows'})`);
      return {
        status: 'False',
        reason: 'RowsUnderRetiringKey',
        message: `${job} counted rows under master keys whose retention has ended: ${rows.join(', ')}; they are kept; ${rerun}`,
      };
    }
    case 'signingKeyRetained':
      return {
        status: 'True',
        reason: 'RotationDeferred',
        message: `a rotation is due; it starts once the previous signing key's retention ends at ${kubeTime(block.removeAfter)}, so that the access tokens it signed verify until then`,
      };
  }
}
