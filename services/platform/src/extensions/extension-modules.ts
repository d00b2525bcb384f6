import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DiscoveredExtension } from './discovery.ts';
import { ExtensionError } from './extension-error.ts';

/** The named export of a module an extension's manifest points at; `field` names the manifest field in the error. */
export async function extensionExport(extension: DiscoveredExtension, field: string, modulePath: string, name: string): Promise<unknown> {
  let loaded: Record<string, unknown>;
  try {
    loaded = (await import(pathToFileURL(path.join(extension.dir, modulePath)).href)) as Record<string, unknown>;
  } catch (error) {
    throw new ExtensionError(extension.id, `shop.${field}: ${modulePath} could not be loaded: ${(error as Error).message}`);
  }
  if (loaded[name] === undefined) throw new ExtensionError(extension.id, `shop.${field}: ${modulePath} does not export "${name}"`);
  return loaded[name];
}
