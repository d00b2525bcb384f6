import { ALLOW_DOWNGRADE_ANNOTATION, type RenderShop, type ShopManifests } from '@shop/cdk8s';
import { shopKey, type StoredShop } from '../shop-resource.ts';

/**
 * The last manifests rendered for each Shop, reused while what the renderer reads (the Shop's name,
 * namespace, spec and allow-downgrade annotation) stays the same. Most passes only look at a rollout under way or confirm that
 * nothing changed; rendering in each of them was about a tenth of the operator's CPU time in the
 * 50-Shop bench and more than a third of what it allocated (about 1.2 MB per render with @shop/cdk8s).
 *
 * One entry per Shop, dropped by forget() once the Shop is gone. The manifests are frozen, because
 * every later pass of the Shop gets the same objects.
 */
export class RenderCache {
  readonly #render: RenderShop;
  readonly #byShop = new Map<string, { readonly input: string; readonly manifests: ShopManifests }>();

  constructor(render: RenderShop) {
    this.#render = render;
  }

  /** The Shop's manifests, rendered again only when what the renderer reads changed. Throws what the renderer throws. */
  render(shop: StoredShop): ShopManifests {
    const { name, namespace } = shop.metadata;
    const key = shopKey(namespace, name);
    const input = JSON.stringify([name, namespace, shop.spec, shop.metadata.annotations?.[ALLOW_DOWNGRADE_ANNOTATION] !== undefined]);
    const cached = this.#byShop.get(key);
    if (cached?.input === input) return cached.manifests;
    this.#byShop.delete(key);
    const manifests = deepFreeze(this.#render(shop));
    this.#byShop.set(key, { input, manifests });
    return manifests;
  }

  /** Drops the Shop's entry: it was deleted. */
  forget(key: string): void {
    this.#byShop.delete(key);
  }

  /** Shops with an entry. */
  size(): number {
    return this.#byShop.size;
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
