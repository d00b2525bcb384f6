import type { Config } from '@shop/platform';
import { tokenSettings, type TokenSettings } from '@shop/domain/auth';

/** Tokens are signed with SECRET_KEY; those SECRET_KEY_PREVIOUS signed are still accepted until they expire. */
export function tokenSettingsOf(config: Pick<Config, 'secretKey' | 'secretKeyPrevious'>): TokenSettings {
  return tokenSettings(config.secretKey, config.secretKeyPrevious === undefined ? {} : { previousSecret: config.secretKeyPrevious });
}
