import { ADMIN_INDEX } from '@shop/domain/search';
import { registerSearchFreshnessMetric, searchEnginesFor, type PrismaClient, type SearchConfig } from '@shop/platform';
import type { Registry } from 'prom-client';

/**
 * `search_last_indexed_timestamp_seconds{index="admin"}`, read from the admin index's engine (the
 * process's configured ADMIN_SEARCH_URL, else the database) at each scrape of this process only: the
 * consumer runs `shop.search`, which keeps the admin index current, so its freshness is reported where
 * it is kept, and the other processes pay no query per scrape for it.
 */
export function registerAdminSearchFreshness(registry: Registry, prisma: PrismaClient, config: SearchConfig): void {
  registerSearchFreshnessMetric(registry, searchEnginesFor(config, prisma).admin, [ADMIN_INDEX]);
}
