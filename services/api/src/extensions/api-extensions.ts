import { readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  EVENT_NAMES,
  ExtensionError,
  extensionContext,
  extensionExport,
  extensionPart,
  type DiscoveredExtension,
  type EventListener,
  type ExtensionContext,
  type MasterKeyring,
} from '@shop/platform';
import type { StorageRegistry } from '@shop/platform/storage';
import { areaPlugin, type AreaPlugin } from '../area-plugin.ts';
import type { Resolvers } from '../graphql/generated/resolver-types.ts';

/** A storage provider's `register`, checked to register the name its manifest gives. */
export type StorageRegistration = (registry: StorageRegistry) => void;

/** What the api runs of its extensions: their outbox listeners, graph areas and file storage providers. */
export interface ApiExtensions {
  readonly listeners: readonly EventListener[];
  readonly areas: readonly AreaPlugin[];
  /** In discovery order; the api registers them after the core's `local` (FILE_STORAGE_PROVIDER selects among them). */
  readonly storage: readonly StorageRegistration[];
}

/** Listener names are where deliveries are recorded: the `<id>.` prefix keeps two extensions' apart from the core's. */
function checkedListeners(extension: DiscoveredExtension, value: unknown): EventListener[] {
  if (!Array.isArray(value)) throw new ExtensionError(extension.id, 'shop.listeners: "listeners" must be a list');
  return value.map((listener: Partial<EventListener>, index) => {
    const where = `shop.listeners: listeners[${index}]`;
    if (typeof listener.name !== 'string' || !listener.name.startsWith(`${extension.id}.`))
      throw new ExtensionError(extension.id, `${where} needs a name starting with "${extension.id}."`);
    if (!EVENT_NAMES.includes(listener.event as EventListener['event']))
      throw new ExtensionError(extension.id, `${where} listens to ${String(listener.event)}, which is not an event of the catalogue`);
    if (typeof listener.handle !== 'function') throw new ExtensionError(extension.id, `${where} needs a handle function`);
    return listener as EventListener;
  });
}

async function graphAreaOf(extension: DiscoveredExtension, graphql: { schema: string; resolvers: string }, context: ExtensionContext) {
  const schema = await readFile(path.join(extension.dir, graphql.schema), 'utf8').catch((error: Error) => {
    throw new ExtensionError(extension.id, `shop.graphql.schema: ${error.message}`);
  });
  const resolvers = await extensionPart(extension, 'graphql.resolvers', graphql.resolvers, 'resolvers', context);
  if (typeof resolvers !== 'object' || resolvers === null)
    throw new ExtensionError(extension.id, 'shop.graphql.resolvers: "resolvers" must be an object of types and their fields');
  const permissions = (extension.manifest.permissions ?? []).map((permission) => permission.name);
  return areaPlugin(`extension ${extension.id}`, [], (app) => app.addGraphArea({ schema, resolvers: resolvers as Resolvers, permissions }));
}

/** Each provider module's `register(registry, context)`, given the extension's context (its configuration). */
async function storageOf(extension: DiscoveredExtension, context: ExtensionContext): Promise<StorageRegistration[]> {
  const providers = extension.manifest.storageProviders ?? [];
  return Promise.all(
    providers.map(async ({ name, module }, index) => {
      const field = `storageProviders[${index}].module`;
      const register = await extensionExport(extension, field, module, 'register');
      if (typeof register !== 'function')
        throw new ExtensionError(extension.id, `shop.${field}: "register" of ${module} must be a function`);
      return (registry: StorageRegistry) => {
        (register as (registry: StorageRegistry, context: ExtensionContext) => void)(registry, context);
        if (!registry.names().includes(name))
          throw new ExtensionError(extension.id, `shop.storageProviders[${index}]: ${module} registered no provider named "${name}"`);
      };
    }),
  );
}

/**
 * Loads the listeners, GraphQL and storage modules the manifests name; `listeners` and `resolvers` may be
 * functions of the extension's context (its settings, read with the master keys). @throws ExtensionError naming the extension and the field.
 */
export async function loadApiExtensions(extensions: readonly DiscoveredExtension[], masterKeys: MasterKeyring): Promise<ApiExtensions> {
  const listeners: EventListener[] = [];
  const areas: AreaPlugin[] = [];
  const storage: StorageRegistration[] = [];
  for (const extension of extensions) {
    const { manifest } = extension;
    const context = extensionContext(extension, masterKeys);
    if (manifest.listeners !== undefined)
      listeners.push(...checkedListeners(extension, await extensionPart(extension, 'listeners', manifest.listeners, 'listeners', context)));
    if (manifest.graphql !== undefined) areas.push(await graphAreaOf(extension, manifest.graphql, context));
    storage.push(...(await storageOf(extension, context)));
  }
  return { listeners, areas, storage };
}
