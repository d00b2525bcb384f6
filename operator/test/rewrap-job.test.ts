import { REWRAP_COMMAND, renderShop } from '@shop/cdk8s';
import { describe, expect, it } from 'vitest';
import { minimalShop } from '../../cdk8s/test/support/shops.ts';
import { rewrapJob } from '../src/keys/rewrap-job.ts';

interface RenderedJob {
  metadata: { name: string; labels: Record<string, string> };
  spec: {
    activeDeadlineSeconds?: number;
    ttlSecondsAfterFinished?: number;
    podFailurePolicy?: { rules: Array<Record<string, unknown>> };
    template: { spec: { containers: Array<{ name: string; command: string[]; env: Array<{ name: string }> }> } };
  };
}

describe('the key rewrap Job', () => {
  const manifests = renderShop(minimalShop());
  const migration = manifests.migrationJob;
  const job = rewrapJob(manifests, 'acme-keys-2') as unknown as RenderedJob;

  it('is the migration Job with its own name, label and command', () => {
    expect(job.metadata).toMatchObject({ name: 'acme-keys-2', labels: { 'app.kubernetes.io/component': 'key-rewrap' } });
    expect(job.spec.template.spec.containers).toMatchObject([{ name: 'key-rewrap', command: [...REWRAP_COMMAND] }]);
  });

  it('has the master keys, which the migration Job does not get', () => {
    const names = (job.spec.template.spec.containers[0]?.env ?? []).map((variable) => variable.name);
    expect(names).toEqual(expect.arrayContaining(['DATABASE_URL', 'SECRETS_MASTER_KEY', 'SECRETS_MASTER_KEY_ROTATING_FROM']));
    expect(names).not.toContain('WORKFLOW_HOST');
    const migrationNames = (migration.spec as RenderedJob['spec']).template.spec.containers[0]?.env.map((variable) => variable.name);
    expect(migrationNames).not.toContain('SECRETS_MASTER_KEY');
  });

  it("has no deadline, no rule on the migration command's exit codes and no TTL: its count is read from its pod, maybe long after it ended", () => {
    expect(job.spec.activeDeadlineSeconds).toBeUndefined();
    expect(job.spec.ttlSecondsAfterFinished).toBeUndefined();
    expect(job.spec.podFailurePolicy?.rules.filter((rule) => 'onExitCodes' in rule)).toEqual([]);
    expect((migration.spec as { ttlSecondsAfterFinished?: number }).ttlSecondsAfterFinished).toBeGreaterThan(0); // the migration Job keeps its own
  });
});
