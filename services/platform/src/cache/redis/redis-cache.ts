import { Redis } from 'ioredis';
import type { Logger } from '@shop/runtime';
import type { Cache } from '../cache.ts';

const MAX_RECONNECT_DELAY_MS = 2_000;

/**
 * ioredis over CACHE_URL. Commands fail at once while disconnected (no offline queue), so a
 * lost cache shows in /ready within one probe instead of requests piling up behind it.
 */
export class RedisCache implements Cache {
  readonly mode = 'external';
  readonly client: Redis;

  constructor(url: string, logger: Logger) {
    this.client = new Redis(url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2_000,
      retryStrategy: (attempt) => Math.min(attempt * 200, MAX_RECONNECT_DELAY_MS),
    });
    let reportedDown = false;
    this.client.on('error', (error: Error) => {
      if (!reportedDown) logger.warn({ err: error }, 'cache connection lost');
      reportedDown = true;
    });
    this.client.on('ready', () => {
      if (reportedDown) logger.info('cache connection restored');
      reportedDown = false;
    });
  }

  /** Starts connecting; the process starts even when the cache is down and reports it in /ready. */
  connect(): void {
    this.client.connect().catch(() => {});
  }

  async ping(): Promise<void> {
    await this.client.ping();
  }

  async get(key: string): Promise<string | undefined> {
    return (await this.client.get(key)) ?? undefined;
  }

  async set(key: string, value: string, ttlSeconds?: number): Promise<void> {
    if (ttlSeconds === undefined) await this.client.set(key, value);
    else await this.client.set(key, value, 'PX', Math.round(ttlSeconds * 1000));
  }

  async setIfAbsent(key: string, value: string, ttlSeconds?: number): Promise<boolean> {
    const result =
      ttlSeconds === undefined
        ? await this.client.set(key, value, 'NX')
        : await this.client.set(key, value, 'PX', Math.round(ttlSeconds * 1000), 'NX');
    return result === 'OK';
  }

  async delete(key: string): Promise<void> {
    await this.client.del(key);
  }

  async close(): Promise<void> {
    if (this.client.status === 'ready') await this.client.quit();
    else this.client.disconnect();
  }
}
