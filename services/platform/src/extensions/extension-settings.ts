import type { Prisma } from '../generated/prisma/client.ts';
import type { RunTransaction } from '../outbox/emit.ts';
import type { MasterKeyring } from '../secrets/keyring.ts';
import { readStoredSecret } from '../secrets/stored-secrets.ts';
import type { DiscoveredExtension } from './discovery.ts';
import { ExtensionError } from './extension-error.ts';
import { settingFits, type ExtensionSettingDeclaration, type ExtensionSettingType, type ExtensionSettingValue } from './manifest.ts';

type Db = Prisma.TransactionClient;

/** Where a plain setting is kept in `settings`: `ext.<id>.<key>`, apart from the core's keys. */
export const extensionSettingKey = (extensionId: string, key: string): string => `ext.${extensionId}.${key}`;

/** Where a secret setting is kept in `stored_secrets`: secret names are `area.name` without dashes, and ids have no underscores, so none is taken twice. */
export const extensionSecretKey = (extensionId: string, key: string): string => `ext.${extensionId.replaceAll('-', '_')}.${key}`;

/** The declaration of `key`, or an ExtensionError naming the extension: code reading an undeclared setting is a bug of the extension. */
function settingDeclaration(extension: Pick<DiscoveredExtension, 'id' | 'manifest'>, key: string): ExtensionSettingDeclaration {
  const declaration = extension.manifest.settings?.find((setting) => setting.key === key);
  if (declaration === undefined) throw new ExtensionError(extension.id, `reads the setting "${key}", which shop.settings does not declare`);
  return declaration;
}

/**
 * The value in force: the stored one, else the default, else null. A stored value that no longer fits
 * its declared type (a later version changed the type) counts as unset.
 */
export async function extensionSettingValue(
  db: Db,
  masterKeys: MasterKeyring,
  extensionId: string,
  declaration: ExtensionSettingDeclaration,
): Promise<ExtensionSettingValue | null> {
  const stored =
    declaration.secret === true
      ? await readStoredSecret(db, masterKeys, extensionSecretKey(extensionId, declaration.key))
      : (await db.setting.findUnique({ where: { key: extensionSettingKey(extensionId, declaration.key) } }))?.value;
  return settingFits(declaration, stored) ? stored : (declaration.default ?? null);
}

/**
 * An extension's settings as its code reads them, inside the transaction it runs in: one getter per
 * type, each refusing a key the manifest does not declare with that type. Secrets read decrypted.
 */
export interface ExtensionSettings {
  string(tx: Db, key: string): Promise<string | null>;
  /** For `integer` and `number` settings. */
  number(tx: Db, key: string): Promise<number | null>;
  boolean(tx: Db, key: string): Promise<boolean | null>;
}

/**
 * What an extension's modules are given when the platform registers them (see `extensionPart`). `config` is
 * what the extension's `shop.config` module read at start, of the type its `read` answers (undefined without one).
 */
export interface ExtensionContext<OwnConfig = unknown> {
  readonly id: string;
  readonly settings: ExtensionSettings;
  readonly config: OwnConfig;
}

/** What an extension's `activities` function is given in the worker: its context and a transaction whose events go through the outbox. */
export interface ExtensionActivityContext<OwnConfig = unknown> extends ExtensionContext<OwnConfig> {
  readonly transaction: RunTransaction;
}

export function extensionContext(
  extension: Pick<DiscoveredExtension, 'id' | 'manifest' | 'config'>,
  masterKeys: MasterKeyring,
): ExtensionContext {
  const read = (types: readonly ExtensionSettingType[]) => async (db: Db, key: string) => {
    const declaration = settingDeclaration(extension, key);
    if (!types.includes(declaration.type))
      throw new ExtensionError(extension.id, `reads the setting "${key}" as ${types.join(' or ')}, but it is declared ${declaration.type}`);
    return extensionSettingValue(db, masterKeys, extension.id, declaration);
  };
  return {
    id: extension.id,
    config: extension.config,
    settings: {
      string: read(['string']) as ExtensionSettings['string'],
      number: read(['integer', 'number']) as ExtensionSettings['number'],
      boolean: read(['boolean']) as ExtensionSettings['boolean'],
    },
  };
}
