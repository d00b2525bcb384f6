import { readSetting, storeSetting } from '@shop/domain';
import type { Resolvers } from '../graphql/generated/resolver-types.ts';
import { staffField } from '../graphql/staff-fields.ts';

export const settingsResolvers: Resolvers = {
  Query: {
    setting: staffField(({ key }, { tx }) => readSetting(tx, key)),
  },
  Mutation: {
    setSetting: staffField(({ key, value }, { tx }) => storeSetting(tx, key, value)),
  },
};
