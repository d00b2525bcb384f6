import type { Shop } from '@shop/cdk8s';
import { describe, expect, it } from 'vitest';
import { RenderCache } from '../src/reconcile/render-cache.ts';
import type { StoredShop } from '../src/shop-resource.ts';
import { shopManifest } from './support/shops.ts';
import { testRender } from './support/test-renderer.ts';

function stored(shop: Shop, metadata: Partial<StoredShop['metadata']> = {}): StoredShop {
  return {
    ...shop,
    metadata: { name: 'shop', namespace: 'ns', uid: 'uid-1', generation: 1, resourceVersion: '10', ...shop.metadata, ...metadata },
  } as StoredShop;
}

function countingCache() {
  const rendered: string[] = [];
  const cache = new RenderCache((shop) => {
    rendered.push(shop.spec.image.tag);
    return testRender(shop);
  });
  return { cache, rendered };
}

describe('RenderCache', () => {
  it('renders a Shop once while its spec stays the same, whatever its status and resourceVersion', () => {
    const { cache, rendered } = countingCache();
    const first = cache.render(stored(shopManifest('shop', '1.0.0')));
    const again = cache.render({ ...stored(shopManifest('shop', '1.0.0'), { resourceVersion: '11' }), status: { phase: 'Deploying' } });
    expect(again).toBe(first);
    expect(rendered).toEqual(['1.0.0']);
  });

  it('renders again when the spec changes, and keeps one entry per Shop', () => {
    const { cache, rendered } = countingCache();
    cache.render(stored(shopManifest('shop', '1.0.0')));
    const upgraded = cache.render(stored(shopManifest('shop', '1.1.0'), { generation: 2 }));
    expect(upgraded.migrationJob.metadata.name).toBe('shop-migrate-1-1-0');
    cache.render(stored(shopManifest('other', '1.0.0')));
    expect(rendered).toEqual(['1.0.0', '1.1.0', '1.0.0']);
    expect(cache.size()).toBe(2);
  });

  it('tells Shops of the same name in two namespaces apart, and forgets a deleted one', () => {
    const { cache, rendered } = countingCache();
    cache.render(stored(shopManifest('shop', '1.0.0'), { namespace: 'a' }));
    cache.render(stored(shopManifest('shop', '1.0.0'), { namespace: 'b' }));
    cache.forget('a/shop');
    expect(cache.size()).toBe(1);
    cache.render(stored(shopManifest('shop', '1.0.0'), { namespace: 'b' }));
    cache.render(stored(shopManifest('shop', '1.0.0'), { namespace: 'a' }));
    expect(rendered).toHaveLength(3);
  });

  it('hands out frozen manifests, so no pass can change what the next one gets', () => {
    const { cache } = countingCache();
    const manifests = cache.render(stored(shopManifest('shop', '1.0.0')));
    expect(() => {
      (manifests.api.deployment.metadata as { name: string }).name = 'changed';
    }).toThrow(TypeError);
  });

  it('does not keep a failed render', () => {
    let calls = 0;
    const cache = new RenderCache(() => {
      calls += 1;
      throw new Error('metadata.name: too long');
    });
    expect(() => cache.render(stored(shopManifest('shop', '1.0.0')))).toThrow('too long');
    expect(() => cache.render(stored(shopManifest('shop', '1.0.0')))).toThrow('too long');
    expect(calls).toBe(2);
    expect(cache.size()).toBe(0);
  });
});
