export interface TokenSettings {
  /** HS256 key that signs access tokens: the api passes Config.secretKey (SECRET_KEY). */
  readonly secret: string;
  /** The key before the last rotation (Config.secretKeyPrevious, SECRET_KEY_PREVIOUS): tokens it signed still verify until they expire. */
  readonly previousSecret?: string;
  readonly issuer: string;
  readonly audience: string;
  readonly accessTokenSeconds: number;
  readonly refreshTokenSeconds: number;
  /** Every expiry and timestamp is taken from it, so tests control time. */
  readonly now: () => Date;
}

export const DEFAULT_TOKEN_SETTINGS = {
  issuer: 'shop',
  audience: 'shop-api',
  accessTokenSeconds: 15 * 60,
  refreshTokenSeconds: 30 * 24 * 60 * 60,
} as const;

/** The defaults with the secret and any overrides; throws on an empty secret or a non-positive lifetime (a wiring mistake). */
export function tokenSettings(secret: string, overrides: Partial<Omit<TokenSettings, 'secret'>> = {}): TokenSettings {
  const settings: TokenSettings = { ...DEFAULT_TOKEN_SETTINGS, now: () => new Date(), ...overrides, secret };
  if (secret === '') throw new Error('token settings need a non-empty secret');
  for (const lifetime of ['accessTokenSeconds', 'refreshTokenSeconds'] as const) {
    if (!Number.isInteger(settings[lifetime]) || settings[lifetime] <= 0)
      throw new Error(`token settings: ${lifetime} must be a positive integer`);
  }
  return settings;
}
