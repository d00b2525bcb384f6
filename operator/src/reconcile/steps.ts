import type { ReconcileStep } from './pass.ts';
import { api } from './steps/api.ts';
import { configMap } from './steps/config-map.ts';
import { generatedKeys } from './steps/generated-keys.ts';
import { keyRotation } from './steps/key-rotation.ts';
import { migrations } from './steps/migrations.ts';
import { monitoring } from './steps/monitoring.ts';
import { networkPolicies } from './steps/network-policies.ts';
import { paused } from './steps/paused.ts';
import { prune } from './steps/prune.ts';
import { referencedSecrets } from './steps/referenced-secrets.ts';
import { seed } from './steps/seed.ts';
import { workerAndConsumer } from './steps/worker-and-consumer.ts';

/**
 * A Shop's reconcile steps, in order. A step that halts ends the pass: the steps after it wait for a
 * later pass (triggered by a watched change, a requeue or the periodic resync).
 */
export const shopSteps: readonly ReconcileStep[] = [
  // First: a paused Shop gets no write at all.
  paused,
  generatedKeys,
  configMap,
  networkPolicies,
  // Before anything that can halt, so a Shop stuck migrating is still monitored.
  monitoring,
  referencedSecrets,
  migrations,
  // The first admin, before the api serves.
  seed,
  api,
  workerAndConsumer,
  // Each phase of a rotation moves on only once the api, the worker and the consumer run the keys.
  keyRotation,
  // Last: once every step has said what it uses, and only in passes that were not halted.
  prune,
];
