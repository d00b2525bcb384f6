import type { KubeObject } from '@shop/cdk8s';

const COMPONENT_LABEL = 'app.kubernetes.io/component';

export interface JobShape {
  metadata: { name: string; labels?: Record<string, string> };
  spec: {
    activeDeadlineSeconds?: number;
    ttlSecondsAfterFinished?: number;
    podFailurePolicy?: { rules: Array<{ onExitCodes?: unknown }> };
    template: {
      metadata?: { labels?: Record<string, string> };
      spec: { containers: Array<{ name: string; command?: string[]; env?: Array<Record<string, unknown>> }> };
    };
  };
}

/**
 * The migration Job with another name, component (label and container name) and command: the same
 * image, configuration, environment, resources and locked-down pod, without the rules on the migration
 * command's exit codes.
 */
export function derivedJob(migrationJob: KubeObject, name: string, component: string, command: readonly string[]): JobShape {
  const job = structuredClone(migrationJob) as unknown as JobShape;
  job.metadata.name = name;
  job.metadata.labels = { ...job.metadata.labels, [COMPONENT_LABEL]: component };
  const policy = job.spec.podFailurePolicy;
  if (policy) policy.rules = policy.rules.filter((rule) => rule.onExitCodes === undefined);
  const template = job.spec.template;
  template.metadata = { ...template.metadata, labels: { ...template.metadata?.labels, [COMPONENT_LABEL]: component } };
  const [container, ...others] = template.spec.containers;
  if (!container || others.length > 0) throw new Error(`the migration Job ${migrationJob.metadata.name} does not have exactly one container`);
  container.name = component;
  container.command = [...command];
  return job;
}
