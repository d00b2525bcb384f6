import { createHash } from 'node:crypto';
import { REWRAP_COMMAND, type KubeObject, type ShopManifests } from '@shop/cdk8s';
import { derivedJob } from '../kube/derived-job.ts';

/** `<shop>-keys-<revision>`: a DNS label for every Shop name the renderer accepts (at most 54 characters) up to revision 999. */
export const rewrapJobName = (shopName: string, revision: number): string => `${shopName}-keys-${revision}`;

/**
 * `<shop>-keys-<hash>` for supplied keys: one Job per set of key ids. The hash (of the Shop's name
 * too) keeps the name unique when a long Shop name is cut to fit a DNS label.
 */
export const suppliedRewrapJobName = (shopName: string, keyIds: readonly string[]): string => hashedJobName(shopName, keyIds);

/**
 * `<shop>-keys-<hash>` for the removal check of generated master keys whose retention has ended: one
 * Job per current key id and set of key ids to remove, so a removal of the signing key alone in
 * between does not ask for another.
 */
export const removalCheckJobName = (shopName: string, currentKeyId: string, dueKeyIds: readonly string[]): string =>
  hashedJobName(shopName, ['removal-check', currentKeyId, ...dueKeyIds]);

function hashedJobName(shopName: string, parts: readonly string[]): string {
  const hash = createHash('sha256')
    .update([shopName, ...parts].join('\0'))
    .digest('hex')
    .slice(0, 8);
  return `${shopName.slice(0, 49)}-keys-${hash}`;
}

/**
 * The Job that runs `npm run secrets:rewrap` (its command without npm) once for a set of keys: the
 * rewrap of a rotation, of supplied earlier keys, or the removal check. It is the migration Job with
 * another name, label, command and secrets (`manifests.jobEnvironments`: both master-key variables,
 * where the migration has the database URL alone): the same image, configuration, resources and
 * locked-down pod. It exits 0 only once every stored secret is under SECRETS_MASTER_KEY, and its pod's termination message holds the rows per key id at its end. Without the
 * migration's deadline (it takes as long as the rows do at SECRETS_REWRAP_ROWS_PER_SECOND), its rules
 * on exit codes (the migration command's) and its TTL (the operator reads the count from the pod,
 * maybe long after the Job ended; the Job history limit removes old ones).
 */
export function rewrapJob(manifests: ShopManifests, name: string): KubeObject {
  const job = derivedJob(manifests, name, 'key-rewrap', REWRAP_COMMAND);
  delete job.spec.activeDeadlineSeconds;
  delete job.spec.ttlSecondsAfterFinished;
  return job as unknown as KubeObject;
}
