import type { Logger } from '@shop/runtime';
import type { Config } from '../config/config.ts';
import type { FileStorage } from './file-storage.ts';

/** What a provider is built from when it is selected. */
export interface StorageProviderContext {
  readonly config: Config;
  readonly logger: Logger;
}

export interface StorageProvider {
  readonly name: string;
  /** Called only for the selected provider; throws a ConfigError naming the variable it misses. */
  create(context: StorageProviderContext): FileStorage;
}

/** File storage providers by name: the core registers `local`, extensions register theirs after it. */
export class StorageRegistry {
  readonly #providers: StorageProvider[] = [];

  register(provider: StorageProvider): void {
    if (this.#providers.some(({ name }) => name === provider.name)) throw new Error(`a file storage provider named "${provider.name}" is registered already`);
    this.#providers.push(provider);
  }

  names(): string[] {
    return this.#providers.map(({ name }) => name);
  }

  /**
   * The provider `FILE_STORAGE_PROVIDER` pins; when it is empty, the last registered; when it names
   * no registered provider, the last registered and one warning.
   */
  select(pinned: string | undefined, logger: Logger): StorageProvider {
    const last = this.#providers.at(-1);
    if (last === undefined) throw new Error('no file storage provider is registered');
    if (pinned === undefined) return last;
    const found = this.#providers.find(({ name }) => name === pinned);
    if (found !== undefined) return found;
    logger.warn(`FILE_STORAGE_PROVIDER=${pinned} names no registered provider (registered: ${this.names().join(', ')}); using "${last.name}", the last registered`);
    return last;
  }
}
