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
  /**
   * Whether the configuration sets the provider up (S3: its endpoint or bucket is set). Only a
   * configured provider is chosen when none is pinned, so an installed but unconfigured extension
   * does not take over from `local`. Absent: always.
   */
  isConfigured?(config: Config): boolean;
  /**
   * Called only for the selected provider, so a provider may load its client library here; throws (or
   * rejects with) a ConfigError naming the variable it misses.
   */
  create(context: StorageProviderContext): FileStorage | Promise<FileStorage>;
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
   * The provider FILE_STORAGE_PROVIDER pins; when it is empty, the last registered (of those
   * configured); when it names no registered provider, that one and a warning.
   */
  select(config: Config, logger: Logger): StorageProvider {
    const last = this.#providers.findLast((provider) => provider.isConfigured?.(config) ?? true);
    if (last === undefined) throw new Error('no file storage provider is registered');
    const pinned = config.fileStorageProvider;
    if (pinned === undefined) return last;
    const found = this.#providers.find(({ name }) => name === pinned);
    if (found !== undefined) return found;
    logger.warn(`FILE_STORAGE_PROVIDER=${pinned} names no registered provider (registered: ${this.names().join(', ')}); using "${last.name}", the last registered`);
    return last;
  }
}
