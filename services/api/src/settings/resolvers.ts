import type { StoredSecretStatus } from '@shop/platform';
import {
  extensionSettingViews,
  readSetting,
  resetExtensionSetting,
  secretStatus,
  storeExtensionSecret,
  storeExtensionSetting,
  storeSecret,
  storeSetting,
} from '@shop/domain/settings';
import type { Resolvers } from '../graphql/generated/resolver-types.ts';
import { staffField } from '../graphql/staff-fields.ts';
import { iso } from '../graphql/iso.ts';

const secretStatusView = (status: StoredSecretStatus) => ({
  key: status.key,
  setAt: iso(status.setAt),
  setByStaffUserId: status.setByStaffUserId?.toString() ?? null,
  keyId: status.keyId,
});

export const settingsResolvers: Resolvers = {
  Query: {
    setting: staffField(({ key }, { tx }) => readSetting(tx, key)),
    secretStatus: staffField(async ({ key }, { tx }) => {
      const status = await secretStatus(tx, key);
      return status === null ? null : secretStatusView(status);
    }),
    extensionSettings: staffField(({ extension }, { tx }, { shop: { services } }) =>
      extensionSettingViews(tx, services.masterKeys, services.extensions, extension),
    ),
  },
  Mutation: {
    setSetting: staffField(({ key, value }, { tx }) => storeSetting(tx, key, value)),
    setSecret: staffField(async ({ key, value }, { tx, staffUserId }, context) => {
      const { masterKeys, deps } = context.shop.services;
      return secretStatusView(await storeSecret(tx, masterKeys, { key, value, staffUserId, now: deps.now() }));
    }),
    setExtensionSetting: staffField((input, { tx }, { shop: { services } }) =>
      storeExtensionSetting(tx, services.masterKeys, services.extensions, input),
    ),
    resetExtensionSetting: staffField((input, { tx }, { shop: { services } }) =>
      resetExtensionSetting(tx, services.masterKeys, services.extensions, input),
    ),
    setExtensionSecret: staffField((input, { tx, staffUserId }, { shop: { services } }) =>
      storeExtensionSecret(tx, services.masterKeys, services.extensions, { ...input, staffUserId, now: services.deps.now() }),
    ),
  },
};
