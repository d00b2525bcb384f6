import { REWRAP_COMMAND, renderShop } from '@shop/cdk8s';
import { describe, expect, it } from 'vitest';
import { minimalShop } from '../../cdk8s/test/shops.ts';
import { rewrapJob } from '../src/keys/rewrap-job.ts';

interface RenderedJob {
  metadata: { name: string; labels: Record<string, string> };
  spec: { activeDeadlineSeconds?: number; ttlSecondsAfterFinished?: number; podFailurePolicy?: { rules: Array<Record<string, unknown>> }; template: { spec: { containers: Array<{ name: string; command: string[] }> } } };
}

describe('the key rewrap Job', () => {
  const migration = renderShop(minimalShop()).migrationJob;
  const job = rewrapJob(migration, 'acme-keys-2') as unknown as RenderedJob;

  it('is the migration Job with its own name, label and command', () => {
    expect(job.metadata).toMatchObject({ name: 'acme-keys-2', labels: { 'app.kubernetes.io/component': 'key-rewrap' } });
    expect(job.spec.template.spec.containers).toMatchObject([{ name: 'key-rewrap', command: [...REWRAP_COMMAND] }]);
  });

  it("has no deadline, no rule on the migration command's exit codes and no TTL: its count is read from its pod, maybe long after it ended", () => {
    expect(job.spec.activeDeadlineSeconds).toBeUndefined();
    expect(job.spec.ttlSecondsAfterFinished).toBeUndefined();
    expect(job.spec.podFailurePolicy?.rules.filter((rule) => 'onExitCodes' in rule)).toEqual([]);
    expect((migration.spec as { ttlSecondsAfterFinished?: number }).ttlSecondsAfterFinished).toBeGreaterThan(0); // the migration Job keeps its own
  });
});
