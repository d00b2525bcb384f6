/**
 * The resourceVersion the API server returned from the operator's last apply of each monitoring
 * object, per Shop: while the watch cache holds that very version, nobody changed or deleted the
 * object since. Owned by the controller, so each term as leader starts empty and applies everything
 * once; one entry per Shop, dropped by forget() once the Shop is gone.
 */
export class LastApplied {
  readonly #byShop = new Map<string, Map<string, string>>();

  /** The Shop's resourceVersions, by `kind/name` (its objects are in its namespace). */
  of(key: string): Map<string, string> {
    let versions = this.#byShop.get(key);
    if (!versions) this.#byShop.set(key, (versions = new Map()));
    return versions;
  }

  /** Drops the Shop's entry: it was deleted. */
  forget(key: string): void {
    this.#byShop.delete(key);
  }
}
