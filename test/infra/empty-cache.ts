import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Runs `check` as if nothing were provisioned: SHOP_INFRA_CACHE points at an empty folder meanwhile. */
export async function withEmptyInfraCache(check: () => Promise<void>): Promise<void> {
  const emptyCache = await mkdtemp(join(tmpdir(), 'shop-infra-empty-cache-'));
  const previous = process.env.SHOP_INFRA_CACHE;
  process.env.SHOP_INFRA_CACHE = emptyCache;
  try {
    await check();
  } finally {
    if (previous === undefined) delete process.env.SHOP_INFRA_CACHE;
    else process.env.SHOP_INFRA_CACHE = previous;
    await rm(emptyCache, { recursive: true, force: true });
  }
}
