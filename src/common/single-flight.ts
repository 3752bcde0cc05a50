/**
 * One load per key at a time: a caller asking while a load runs joins it instead of starting
 * another. A registration can be dropped (an invalidation, a timeout); the load goes on, but
 * `settled` tells it that it is no longer current, so it does not fill a cache it no longer
 * belongs to. Used by every cache on the reply path and by the community's usage and enrollment.
 */
export class SingleFlight<K, V> {
  readonly #flights = new Map<K, Promise<V>>();

  /** The load now running for `key`, if any. */
  get(key: K): Promise<V> | undefined {
    return this.#flights.get(key);
  }

  get size(): number {
    return this.#flights.size;
  }

  /**
   * Joins the load running for `key`, or starts `load`. `settled` runs when a load this call
   * started succeeds, before anyone awaiting it resumes, with whether it was still registered.
   */
  run(
    key: K,
    load: () => Promise<V>,
    settled?: (value: V, current: boolean) => void,
  ): { promise: Promise<V>; joined: boolean } {
    const running = this.#flights.get(key);
    if (running) return { promise: running, joined: true };
    const promise: Promise<V> = load().then(
      (value) => {
        const current = this.#flights.get(key) === promise;
        if (current) this.#flights.delete(key);
        settled?.(value, current);
        return value;
      },
      (error: unknown) => {
        if (this.#flights.get(key) === promise) this.#flights.delete(key);
        throw error;
      },
    );
    this.#flights.set(key, promise);
    return { promise, joined: false };
  }

  /** Drops the registration of `key` (only if it is still `only`, when given), or of every key. */
  forget(key?: K, only?: Promise<V>): void {
    if (key === undefined) {
      this.#flights.clear();
      return;
    }
    if (only === undefined || this.#flights.get(key) === only) this.#flights.delete(key);
  }
}
