import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DiscoveredExtension } from './discovery.ts';
import { ExtensionError } from './extension-error.ts';
import type { ExtensionContext } from './extension-settings.ts';

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

/**
 * A part of the extension its module exports by `name` (its listeners, resolvers, consumer handlers or
 * activities): the value itself, or a function the platform calls with the extension's context to get it.
 */
export async function extensionPart(
  extension: DiscoveredExtension,
  field: string,
  modulePath: string,
  name: string,
  context: ExtensionContext,
): Promise<unknown> {
  const exported = await extensionExport(extension, field, modulePath, name);
  return typeof exported === 'function' ? (exported as (context: ExtensionContext) => unknown)(context) : exported;
}
