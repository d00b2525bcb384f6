import type { PrismaClient } from '@shop/platform';
import { findChannel } from '@shop/domain/accounts';
import { DomainError } from '@shop/domain/kernel';

/** What a request needs of its channel. */
export interface KnownChannel {
  readonly id: bigint;
  readonly defaultCurrency: string;
}

/** How long a looked-up channel is trusted before it is read again. */
export const CHANNEL_TTL_MS = 60_000;

const NUMERIC = /^[1-9][0-9]{0,18}$/;

/**
 * The channels requests name (X-Channel-ID, by id or code, or a customer's own), looked up once per
 * process instead of once per request.
 *
 * Why caching is safe: the api never changes a channel's id, code or default currency and never
 * deletes one (channels are only created), so a cached entry cannot go stale through the api. Only
 * channels that exist are kept: an unknown reference is read again every time, so a channel created
 * on another replica is found at its first use. Entries expire after CHANNEL_TTL_MS, so a change
 * made outside the api (SQL) shows within a minute. An operation that updates or deletes channels
 * must call `forget()` (and other replicas then see it within the TTL).
 */
export class ChannelDirectory {
  readonly #prisma: PrismaClient;
  readonly #ttlMs: number;
  readonly #entries = new Map<string, { readonly channel: Promise<KnownChannel>; readonly expiresAt: number }>();

  constructor(prisma: PrismaClient, ttlMs = CHANNEL_TTL_MS) {
    this.#prisma = prisma;
    this.#ttlMs = ttlMs;
  }

  /** By id or code as sent in X-Channel-ID; BAD_USER_INPUT without one, NOT_FOUND when no such channel exists. */
  byReference(reference: string | undefined): Promise<KnownChannel> {
    if (reference === undefined) {
      return Promise.reject(
        new DomainError(
          'BAD_USER_INPUT',
          'say which channel: send the X-Channel-ID header with a channel id or code, e.g. X-Channel-ID: web',
          {
            field: 'X-Channel-ID',
          },
        ),
      );
    }
    const byId = NUMERIC.test(reference) && BigInt(reference) < 2n ** 63n;
    const where = byId ? { id: BigInt(reference) } : { code: reference };
    return this.#lookUp(
      byId ? `id:${BigInt(reference)}` : `code:${reference}`,
      where,
      `channel ${reference} does not exist`,
      'X-Channel-ID',
    );
  }

  /** A channel known by id (a signed-in customer's); NOT_FOUND when it no longer exists. */
  byId(id: bigint): Promise<KnownChannel> {
    return this.#lookUp(`id:${id}`, { id }, `channel ${id} does not exist`, 'channelId');
  }

  forget(): void {
    this.#entries.clear();
  }

  #lookUp(key: string, where: { id: bigint } | { code: string }, missing: string, field: string): Promise<KnownChannel> {
    const now = Date.now();
    const cached = this.#entries.get(key);
    if (cached !== undefined && cached.expiresAt > now) return cached.channel;
    // Concurrent requests for the same channel share one read.
    const expiresAt = now + this.#ttlMs;
    const channel = findChannel(this.#prisma, where).then((row) => {
      if (row === null) throw new DomainError('NOT_FOUND', missing, { field });
      const known = { id: row.id, defaultCurrency: row.defaultCurrency };
      // Known by its id and its code from now on, whichever the request used.
      for (const other of [`id:${row.id}`, `code:${row.code}`])
        if (other !== key) this.#entries.set(other, { channel: Promise.resolve(known), expiresAt });
      return known;
    });
    this.#entries.set(key, { channel, expiresAt });
    // Misses and failures are not kept.
    channel.catch(() => {
      if (this.#entries.get(key)?.channel === channel) this.#entries.delete(key);
    });
    return channel;
  }
}
