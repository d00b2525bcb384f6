import {
  extensionSecretKey,
  extensionSettingKey,
  extensionSettingValue,
  settingFits,
  settingTypeWords,
  storedSecretStatus,
  type DiscoveredExtension,
  type ExtensionSettingDeclaration,
  type ExtensionSettingType,
  type ExtensionSettingValue,
  type MasterKeyring,
} from '@shop/platform';
import { DomainError, type Tx } from '../kernel/index.ts';
import { storeSecret } from './secret-settings.ts';
import { SETTING_MAX_BYTES } from './settings-store.ts';

type Extension = Pick<DiscoveredExtension, 'id' | 'manifest'>;

/** A declared setting as staff see it: a secret's value is never in it, only whether it is set. */
export interface ExtensionSettingView {
  readonly extension: string;
  readonly key: string;
  readonly type: ExtensionSettingType;
  readonly description: string;
  readonly secret: boolean;
  /** The stored value, else the default, else null; always null for a secret. */
  readonly value: ExtensionSettingValue | null;
  /** Whether a value is stored: false means the default is in force. */
  readonly isSet: boolean;
  readonly default: ExtensionSettingValue | null;
}

function extensionOf(extensions: readonly Extension[], id: string): Extension {
  const extension = extensions.find((candidate) => candidate.id === id);
  if (extension !== undefined) return extension;
  const known = extensions.map((candidate) => candidate.id).join(', ') || 'none';
  throw new DomainError('BAD_USER_INPUT', `extension "${id}" is not installed; installed: ${known}`, { field: 'extension' });
}

function declarationOf(extension: Extension, key: string): ExtensionSettingDeclaration {
  const declared = extension.manifest.settings ?? [];
  const declaration = declared.find((setting) => setting.key === key);
  if (declaration !== undefined) return declaration;
  const known = declared.map((setting) => setting.key).join(', ') || 'none';
  throw new DomainError('BAD_USER_INPUT', `${key} is not a setting of extension ${extension.id}; its settings: ${known}`, { field: 'key' });
}

/** Secrets and plain settings are set by separate mutations: a secret needs secrets.manage. */
function declarationToSet(extension: Extension, key: string, secret: boolean): ExtensionSettingDeclaration {
  const declaration = declarationOf(extension, key);
  if ((declaration.secret === true) !== secret) {
    const instead = secret ? 'it is not a secret: set it with setExtensionSetting' : 'it is a secret: set it with setExtensionSecret';
    throw new DomainError('BAD_USER_INPUT', `${key} of extension ${extension.id}: ${instead}`, { field: 'key' });
  }
  return declaration;
}

async function viewOf(
  tx: Tx,
  masterKeys: MasterKeyring,
  extension: Extension,
  declaration: ExtensionSettingDeclaration,
): Promise<ExtensionSettingView> {
  const secret = declaration.secret === true;
  const isSet = secret
    ? (await storedSecretStatus(tx, extensionSecretKey(extension.id, declaration.key))) !== undefined
    : (await tx.setting.count({ where: { key: extensionSettingKey(extension.id, declaration.key) } })) > 0;
  return {
    extension: extension.id,
    key: declaration.key,
    type: declaration.type,
    description: declaration.description,
    secret,
    value: secret ? null : await extensionSettingValue(tx, masterKeys, extension.id, declaration),
    isSet,
    default: declaration.default ?? null,
  };
}

/** Every setting the extension declares, in the manifest's order. */
export async function extensionSettingViews(
  tx: Tx,
  masterKeys: MasterKeyring,
  extensions: readonly Extension[],
  id: string,
): Promise<ExtensionSettingView[]> {
  const extension = extensionOf(extensions, id);
  const views: ExtensionSettingView[] = [];
  for (const declaration of extension.manifest.settings ?? []) views.push(await viewOf(tx, masterKeys, extension, declaration));
  return views;
}

/** Stores a plain setting's value, refused unless it is of the declared type and range. */
export async function storeExtensionSetting(
  tx: Tx,
  masterKeys: MasterKeyring,
  extensions: readonly Extension[],
  input: { extension: string; key: string; value: unknown },
): Promise<ExtensionSettingView> {
  const extension = extensionOf(extensions, input.extension);
  const declaration = declarationToSet(extension, input.key, false);
  if (!settingFits(declaration, input.value)) {
    throw new DomainError('BAD_USER_INPUT', `value of ${input.key} must be ${settingTypeWords(declaration)}`, { field: 'value' });
  }
  if (typeof input.value === 'string' && (Buffer.byteLength(input.value) > SETTING_MAX_BYTES || input.value.includes('\u0000'))) {
    throw new DomainError('BAD_USER_INPUT', `value of ${input.key} must be at most ${SETTING_MAX_BYTES} bytes, without the NUL character`, {
      field: 'value',
    });
  }
  const key = extensionSettingKey(extension.id, declaration.key);
  await tx.setting.upsert({ where: { key }, create: { key, value: input.value }, update: { value: input.value } });
  return viewOf(tx, masterKeys, extension, declaration);
}

/** Stores a secret setting encrypted in the secrets store (storeSecret); the answer never holds the value. */
export async function storeExtensionSecret(
  tx: Tx,
  masterKeys: MasterKeyring,
  extensions: readonly Extension[],
  input: { extension: string; key: string; value: string; staffUserId: bigint; now: Date },
): Promise<ExtensionSettingView> {
  const extension = extensionOf(extensions, input.extension);
  const declaration = declarationToSet(extension, input.key, true);
  await storeSecret(tx, masterKeys, {
    key: extensionSecretKey(extension.id, declaration.key),
    value: input.value,
    staffUserId: input.staffUserId,
    now: input.now,
  });
  return viewOf(tx, masterKeys, extension, declaration);
}

/** Removes a plain setting's stored value, so its default is in force again. */
export async function resetExtensionSetting(
  tx: Tx,
  masterKeys: MasterKeyring,
  extensions: readonly Extension[],
  input: { extension: string; key: string },
): Promise<ExtensionSettingView> {
  const extension = extensionOf(extensions, input.extension);
  const declaration = declarationToSet(extension, input.key, false);
  await tx.setting.deleteMany({ where: { key: extensionSettingKey(extension.id, declaration.key) } });
  return viewOf(tx, masterKeys, extension, declaration);
}
