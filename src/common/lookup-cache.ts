import { LRUCache } from 'lru-cache';
import { PoolTimeoutError, TransientLookupError } from './errors.ts';
import { DB_FAILURE_NEGATIVE_CACHE_MS } from './limits.ts';
import { SingleFlight } from './single-flight.ts';

export interface LookupCacheOptions {
  ttlMs: number;
  max: number;
  /** How long a caller waits for a load; past it the lookup answers null. Omit to wait for it. */
  queryTimeoutMs?: number;
  /** Milliseconds on a monotonic clock; tests pass a fake. */
  now?: () => number;
  /**
   * A timeout, a pool timeout or the failure window rejects with TransientLookupError instead of
   * answering null, so no caller mistakes it for a miss (the reply snapshots).
   */
  transientErrors?: boolean;
}

export interface LookupCacheStats {
  hits: number;
  misses: number;
  timeouts: number;
  poolTimeouts: number;
  failureSkips: number;
}

interface Entry<V> {
  readonly value: V | null;
}

/**
 * A lookup's answer and whether it is whole: `complete: false` when it was not stored (a load that
 * called `dontStore`, a timeout, a pool timeout, the failure window), so a cache downstream
 * must not store it either (docs/rules.md#transient-not-miss).
 */
export interface Lookup<V> {
  readonly value: V | null;
  readonly complete: boolean;
}

/**
 * A lookup cache for database reads (docs/rules.md#cache-find, #cache-snapshot): an LRU with TTL that
 * also caches misses (null), single-flight loads, an optional per-caller wait bound (a timed-out
 * load is dropped and caches nothing), and a 2 s failure mark after a pool timeout, during which
 * the key answers null without loading. Used for the store's reply snapshots and the composite's
 * find caches.
 */
export class LookupCache<V extends object> {
  readonly stats: LookupCacheStats = { hits: 0, misses: 0, timeouts: 0, poolTimeouts: 0, failureSkips: 0 };
  readonly #lru: LRUCache<string, Entry<V>>;
  readonly #flights = new SingleFlight<string, Lookup<V>>();
  readonly #failedUntil = new Map<string, number>();
  readonly #queryTimeoutMs: number | undefined;
  readonly #now: () => number;
  readonly #transientErrors: boolean;

  constructor(options: LookupCacheOptions) {
    this.#now = options.now ?? (() => performance.now());
    this.#transientErrors = options.transientErrors ?? false;
    this.#queryTimeoutMs = options.queryTimeoutMs;
    this.#lru = new LRUCache<string, Entry<V>>({
      max: options.max,
      ttl: options.ttlMs,
      ttlAutopurge: false,
      // lru-cache otherwise reuses its last clock reading for up to 1 ms of real time, so an
      // injected clock that moved in between would be ignored (expired entries served).
      ttlResolution: 0,
      perf: { now: this.#now },
    });
  }

  /**
   * The cached snapshot for `key`, loading it with `load` on a miss. Never caches a failure. A
   * load may call `dontStore` to answer without caching (a result known to be incomplete).
   */
  async get(key: string, load: (dontStore: () => void) => Promise<V | null>): Promise<V | null> {
    return (await this.lookup(key, load)).value;
  }

  /**
   * As `get`, saying whether the answer is whole: every caller joining a load learns that it
   * was incomplete, not only the one that started it.
   */
  async lookup(key: string, load: (dontStore: () => void) => Promise<V | null>): Promise<Lookup<V>> {
    if (this.#failing(key)) {
      this.stats.failureSkips++;
      return this.#transient('failure-window');
    }
    const cached = this.#lru.get(key);
    if (cached) {
      this.stats.hits++;
      return { value: cached.value, complete: true };
    }
    this.stats.misses++;
    const flight = this.#flights.get(key) ?? this.#start(key, load);
    try {
      return await this.#bounded(key, flight);
    } catch (error) {
      if (error instanceof PoolTimeoutError) {
        this.stats.poolTimeouts++;
        this.markFailure(key);
        return this.#transient('pool-timeout');
      }
      throw error;
    }
  }

  /** Store a value learned some other way (e.g. "this context exists" after a write). */
  set(key: string, value: V | null): void {
    this.#flights.forget(key);
    this.#lru.set(key, { value });
  }

  /** Skip reply queries for `key` for the negative-cache period (after a pool timeout). */
  markFailure(key: string): void {
    this.#failedUntil.set(key, this.#now() + DB_FAILURE_NEGATIVE_CACHE_MS);
  }

  /** Forget `key` (or everything): its entry, its in-flight load and its failure mark. */
  invalidate(key?: string): void {
    if (key === undefined) {
      this.#lru.clear();
      this.#flights.forget();
      this.#failedUntil.clear();
      return;
    }
    this.#lru.delete(key);
    this.#flights.forget(key);
    this.#failedUntil.delete(key);
  }

  get size(): number {
    return this.#lru.size;
  }

  /** Whether `key` is inside its failure window (its null means "unknown", not "missing"). */
  isFailing(key: string): boolean {
    return this.#failing(key);
  }

  #failing(key: string): boolean {
    if (this.#failedUntil.size === 0) return false;
    const until = this.#failedUntil.get(key);
    if (until === undefined) return false;
    if (until > this.#now()) return true;
    this.#failedUntil.delete(key);
    return false;
  }

  #transient(reason: TransientLookupError['reason']): Lookup<V> {
    if (this.#transientErrors) throw new TransientLookupError(reason);
    return NOT_ANSWERED;
  }

  #start(key: string, load: (dontStore: () => void) => Promise<V | null>): Promise<Lookup<V>> {
    let store = true;
    const loading = async (): Promise<Lookup<V>> => {
      const value = await load(() => {
        store = false;
      });
      return { value, complete: store };
    };
    // Only the load still registered may store: an invalidation or a timeout dropped it.
    return this.#flights.run(key, loading, (loaded, current) => {
      if (current && loaded.complete) this.#lru.set(key, { value: loaded.value });
    }).promise;
  }

  #bounded(key: string, flight: Promise<Lookup<V>>): Promise<Lookup<V>> {
    const timeoutMs = this.#queryTimeoutMs;
    if (timeoutMs === undefined) return flight;
    return new Promise<Lookup<V>>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.stats.timeouts++;
        this.#flights.forget(key, flight);
        if (this.#transientErrors) reject(new TransientLookupError('timeout'));
        else resolve(NOT_ANSWERED);
      }, timeoutMs);
      timer.unref();
      flight.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  }
}

/** A lookup that could not be answered now: nothing, and nothing anyone may store. */
const NOT_ANSWERED: Lookup<never> = Object.freeze({ value: null, complete: false });
