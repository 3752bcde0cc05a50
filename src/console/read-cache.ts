/**
 * The console's read cache (docs/rules.md#console-cache): per key a TTL plus a stale window. Within
 * the TTL a value is served as is; within the stale window after it the old value is served at
 * once while one refresh runs in the background; past both, callers wait for a load. Loads are
 * single flight per key, and the TTL counts from when a load FINISHED, so a slow load is not
 * already half expired when it lands. Writes that affect a route drop its keys by prefix; a load
 * that was running when its key was dropped still answers its callers but is not stored.
 *
 * Values are shared between callers: routes serialise them and never mutate them.
 */

export interface Freshness {
  /** How long a loaded value is served without a refresh. */
  ttlMs: number;
  /** How long after the TTL the old value is still served while a refresh runs. */
  staleMs: number;
}

export interface ReadCacheOptions {
  /** Monotonic milliseconds. */
  now: () => number;
  /** Entries kept at most; the least recently loaded is dropped first. */
  maxEntries: number;
  /** A background refresh failed; the old value stays until its stale window ends. */
  onRefreshError?: (key: string, error: unknown) => void;
}

interface Entry {
  value: unknown;
  loadedAt: number;
}

interface Flight {
  promise: Promise<unknown>;
}

export class ReadCache {
  readonly #entries = new Map<string, Entry>();
  readonly #flights = new Map<string, Flight>();
  /** Every object value ever stored: shared and never mutated, so its serialisation can be kept. */
  readonly #stored = new WeakSet<object>();
  readonly #options: ReadCacheOptions;

  constructor(options: ReadCacheOptions) {
    this.#options = options;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Whether `value` is (or was) a cached value, i.e. shared and immutable. */
  holds(value: unknown): boolean {
    return typeof value === 'object' && value !== null && this.#stored.has(value);
  }

  /**
   * The cached value (synchronously, when there is one to serve) or the pending load. A caller
   * that needs a promise awaits the result either way.
   */
  get<T>(key: string, freshness: Freshness, load: () => T | Promise<T>): T | Promise<T> {
    const entry = this.#entries.get(key);
    if (entry !== undefined) {
      const age = this.#options.now() - entry.loadedAt;
      if (age < freshness.ttlMs) return entry.value as T;
      if (age < freshness.ttlMs + freshness.staleMs) {
        this.#load(key, load).catch((error: unknown) => this.#options.onRefreshError?.(key, error));
        return entry.value as T;
      }
    }
    return this.#load(key, load);
  }

  /** Drops every key starting with `prefix` (all keys without one), running loads included. */
  invalidate(prefix = ''): void {
    for (const key of [...this.#entries.keys()]) if (key.startsWith(prefix)) this.#entries.delete(key);
    for (const key of [...this.#flights.keys()]) if (key.startsWith(prefix)) this.#flights.delete(key);
  }

  #load<T>(key: string, load: () => T | Promise<T>): Promise<T> {
    const running = this.#flights.get(key);
    if (running !== undefined) return running.promise as Promise<T>;
    const flight: Flight = { promise: Promise.resolve() };
    const promise = (async () => load())().then(
      (value) => {
        if (this.#flights.get(key) === flight) {
          this.#flights.delete(key);
          this.#store(key, value);
        }
        return value;
      },
      (error: unknown) => {
        if (this.#flights.get(key) === flight) this.#flights.delete(key);
        throw error;
      },
    );
    flight.promise = promise;
    this.#flights.set(key, flight);
    return promise;
  }

  #store(key: string, value: unknown): void {
    if (typeof value === 'object' && value !== null) this.#stored.add(value);
    this.#entries.delete(key);
    this.#entries.set(key, { value, loadedAt: this.#options.now() });
    while (this.#entries.size > this.#options.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#entries.delete(oldest.value);
    }
  }
}
