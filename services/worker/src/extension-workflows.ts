import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { WORKFLOW_TYPES } from '@shop/domain/workflows';
import {
  ExtensionError,
  extensionContext,
  extensionPart,
  type DiscoveredExtension,
  type ExtensionActivityContext,
  type MasterKeyring,
} from '@shop/platform';
import { extensionScheduleOf, type ScheduledWorkflow } from './schedules.ts';

type Activity = (...args: never[]) => Promise<unknown>;

/** The extensions' part of the worker: their workflow modules to bundle, their activities and their schedules. */
export interface LoadedExtensionWorkflows {
  /** Absolute paths, bundled after the core's workflows. */
  readonly modules: readonly string[];
  readonly activities: Readonly<Record<string, Activity>>;
  readonly schedules: readonly ScheduledWorkflow[];
}

/**
 * A workflow type or activity name taken twice, or a schedule of a workflow the extension does not export:
 * the worker cannot tell which one to run, so it stops with exit code 78 (a declaration problem, not a crash).
 */
export class WorkflowDeclarationError extends ExtensionError {}

/** The names of the functions the workflow module exports: each is a workflow type. Imported here only to list them; the bundle runs them. */
async function workflowTypesOf(extension: DiscoveredExtension, modulePath: string): Promise<string[]> {
  let loaded: Record<string, unknown>;
  try {
    loaded = (await import(pathToFileURL(path.join(extension.dir, modulePath)).href)) as Record<string, unknown>;
  } catch (error) {
    throw new ExtensionError(extension.id, `shop.workflows.module: ${modulePath} could not be loaded: ${(error as Error).message}`);
  }
  const types = Object.keys(loaded).filter((name) => typeof loaded[name] === 'function');
  if (types.length === 0)
    throw new WorkflowDeclarationError(extension.id, `shop.workflows.module: ${modulePath} exports no workflow function`);
  return types;
}

async function activitiesOf(
  extension: DiscoveredExtension,
  modulePath: string,
  context: ExtensionActivityContext,
): Promise<Record<string, Activity>> {
  const activities = await extensionPart(extension, 'workflows.activities', modulePath, 'activities', context);
  const entries = typeof activities === 'object' && activities !== null ? Object.entries(activities) : [];
  if (entries.length === 0 || entries.some(([, activity]) => typeof activity !== 'function')) {
    throw new ExtensionError(
      extension.id,
      `shop.workflows.activities: "activities" of ${modulePath} must be an object of activity functions`,
    );
  }
  return Object.fromEntries(entries) as Record<string, Activity>;
}

/**
 * Loads each extension's workflow module (to list its types) and activities, and refuses a workflow type
 * or an activity name the core or an earlier extension has, naming both.
 *
 * @throws WorkflowDeclarationError for a name taken twice or a schedule of an unknown workflow type.
 * @throws ExtensionError when a module cannot be loaded or exports the wrong thing.
 */
export async function loadExtensionWorkflows(
  extensions: readonly DiscoveredExtension[],
  options: { masterKeys: MasterKeyring; transaction: ExtensionActivityContext['transaction']; coreActivities: readonly string[] },
): Promise<LoadedExtensionWorkflows> {
  const workflowOwners = new Map<string, string>(Object.values(WORKFLOW_TYPES).map((type) => [type, 'the core']));
  const activityOwners = new Map<string, string>(options.coreActivities.map((name) => [name, 'the core']));
  const modules: string[] = [];
  const activities: Record<string, Activity> = {};
  const schedules: ScheduledWorkflow[] = [];
  for (const extension of extensions) {
    const declared = extension.manifest.workflows;
    if (declared === undefined) continue;
    const types = await workflowTypesOf(extension, declared.module);
    for (const type of types) {
      const owner = workflowOwners.get(type);
      if (owner !== undefined)
        throw new WorkflowDeclarationError(
          extension.id,
          `shop.workflows.module: the workflow type ${type} is taken by ${owner}; rename the export`,
        );
      workflowOwners.set(type, `extension ${extension.id}`);
    }
    modules.push(path.join(extension.dir, declared.module));
    if (declared.activities !== undefined) {
      const context = { ...extensionContext(extension, options.masterKeys), transaction: options.transaction };
      for (const [name, activity] of Object.entries(await activitiesOf(extension, declared.activities, context))) {
        const owner = activityOwners.get(name);
        if (owner !== undefined)
          throw new WorkflowDeclarationError(
            extension.id,
            `shop.workflows.activities: the activity ${name} is taken by ${owner}; rename it`,
          );
        activityOwners.set(name, `extension ${extension.id}`);
        activities[name] = activity;
      }
    }
    for (const [index, schedule] of (declared.schedules ?? []).entries()) {
      if (!types.includes(schedule.workflowType)) {
        throw new WorkflowDeclarationError(
          extension.id,
          `shop.workflows.schedules[${index}].workflowType ${schedule.workflowType} is not exported by ${declared.module}`,
        );
      }
      schedules.push(extensionScheduleOf(schedule));
    }
  }
  return { modules, activities, schedules };
}
