import type { CustomObjectsApi } from '@kubernetes/client-node';
import { isNotFound } from './errors.ts';

/** The kinds the API server serves in one `group/version` (discovery); none when the group is not installed. */
export async function servedKinds(customObjects: CustomObjectsApi, apiVersion: string): Promise<Set<string>> {
  const [group = '', version = ''] = apiVersion.split('/');
  try {
    const { resources } = await customObjects.getAPIResources({ group, version });
    return new Set(resources.map((resource) => resource.kind));
  } catch (error) {
    if (isNotFound(error)) return new Set();
    throw error;
  }
}
