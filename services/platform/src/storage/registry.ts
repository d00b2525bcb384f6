import type { Logger } from '@shop/runtime';
import type { Config } from '../config/config.ts';
import { ProviderRegistry, type NamedProvider } from '../provider-registry.ts';
import type { FileStorage } from './file-storage.ts';

/** What a provider is built from when it is selected. */
export interface StorageProviderContext {
  readonly config: Config;
  readonly logger: Logger;
}

/** A file storage provider; `isConfigured` (S3: its endpoint or bucket is set) decides whether it is chosen when none is pinned. */
export interface StorageProvider extends NamedProvider {
  /**
   * Called only for the selected provider, so a provider may load its client library here; throws (or
   * rejects with) a ConfigError naming the variable it misses.
   */
  create(context: StorageProviderContext): FileStorage | Promise<FileStorage>;
}

/** File storage providers by name: the core registers `local`, extensions register theirs after it. */
export class StorageRegistry extends ProviderRegistry<StorageProvider> {
  constructor() {
    super('file storage provider');
  }

  /**
   * The provider FILE_STORAGE_PROVIDER pins; when it is empty, the last registered (of those
   * configured); when it names no registered provider, that one and a warning.
   */
  select(config: Config, logger: Logger): StorageProvider {
    const last = this.lastConfigured(config);
    if (last === undefined) throw new Error('no file storage provider is registered');
    const pinned = config.fileStorageProvider;
    if (pinned === undefined) return last;
    const found = this.named(pinned);
    if (found !== undefined) return found;
    logger.warn(
      `FILE_STORAGE_PROVIDER=${pinned} names no registered provider (registered: ${this.names().join(', ')}); using "${last.name}", the last registered`,
    );
    return last;
  }
}
