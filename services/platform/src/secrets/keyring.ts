import { masterKeyIdOf } from '@shop/runtime';
import type { Config } from '../config/config.ts';

export interface MasterKey {
  readonly id: string;
  readonly key: Buffer;
}

/** The master keys of this process: writes use `current`; reads accept any key the ring holds. */
export interface MasterKeyring {
  readonly current: MasterKey;
  byId(id: string): MasterKey | undefined;
  readonly ids: readonly string[];
}

export function masterKeyring(current: Buffer, rotatingFrom: readonly Buffer[] = []): MasterKeyring {
  const keys = new Map<string, MasterKey>();
  for (const key of [current, ...rotatingFrom]) {
    const id = masterKeyIdOf(key);
    if (!keys.has(id)) keys.set(id, { id, key });
  }
  const currentId = masterKeyIdOf(current);
  return {
    current: keys.get(currentId) as MasterKey,
    byId: (id) => keys.get(id),
    ids: [...keys.keys()],
  };
}

/** SECRETS_MASTER_KEY and SECRETS_MASTER_KEY_ROTATING_FROM. */
export const keyringOf = (config: Config): MasterKeyring => masterKeyring(config.secretsMasterKey, config.secretsMasterKeysRotatingFrom);
