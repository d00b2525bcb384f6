import type { JobEnvVar, ShopManifests } from '@shop/cdk8s';

const COMPONENT_LABEL = 'app.kubernetes.io/component';

export interface JobShape {
  metadata: { name: string; labels?: Record<string, string> };
  spec: {
    activeDeadlineSeconds?: number;
    ttlSecondsAfterFinished?: number;
    podFailurePolicy?: { rules: Array<{ onExitCodes?: unknown }> };
    template: {
      metadata?: { labels?: Record<string, string> };
      spec: { containers: Array<{ name: string; command?: string[]; env?: JobEnvVar[] }> };
    };
  };
}

/**
 * The migration Job with another name, component (label and container name), command and explicit
 * variables (the secrets its program reads, rendered as `manifests.jobEnvironments`): the same image,
 * configuration (the ConfigMap), resources and locked-down pod, without the rules on the migration
 * command's exit codes.
 */
export function derivedJob(
  manifests: ShopManifests,
  name: string,
  component: keyof ShopManifests['jobEnvironments'],
  command: readonly string[],
): JobShape {
  const migrationJob = manifests.migrationJob;
  const job = structuredClone(migrationJob) as unknown as JobShape;
  job.metadata.name = name;
  job.metadata.labels = { ...job.metadata.labels, [COMPONENT_LABEL]: component };
  const policy = job.spec.podFailurePolicy;
  if (policy) policy.rules = policy.rules.filter((rule) => rule.onExitCodes === undefined);
  const template = job.spec.template;
  template.metadata = { ...template.metadata, labels: { ...template.metadata?.labels, [COMPONENT_LABEL]: component } };
  const [container, ...others] = template.spec.containers;
  if (!container || others.length > 0)
    throw new Error(`the migration Job ${migrationJob.metadata.name} does not have exactly one container`);
  container.name = component;
  container.command = [...command];
  container.env = structuredClone([...manifests.jobEnvironments[component]]);
  return job;
}
