import { createHash } from 'node:crypto';
import { PoolTimeoutError } from '../common/errors.ts';
import { TIMED_OUT, withTimeout } from '../common/timeout.ts';
import { SingleFlight } from '../common/single-flight.ts';
import { BUNDLE_CACHE } from './limits.ts';

/** Identifies one lookup: the group, the bot, the message, and a salt that changes on bans. */
export interface BundleKey {
  groupId: number;
  botId: number;
  rawMessage: string;
  keywords: string;
  /** Part of the key: changing it (e.g. after a ban) makes earlier entries unreachable. */
  salt: number;
}

export interface BundleTimings {
  positiveMs: number;
  negativeMs: number;
  /** 0 = wait for the load without bound. */
  timeoutMs: number;
}

/** A load's answer; `cacheable: false` (e.g. skipped under pool pressure) stores nothing. */
export interface BundleLoad<V> {
  value: V | null;
  cacheable: boolean;
}

export type BundleSource = 'hit' | 'negative-hit' | 'loaded' | 'timeout' | 'pool-timeout' | 'error' | 'not-cached';

export interface BundleResult<V> {
  value: V | null;
  source: BundleSource;
  error?: unknown;
}

interface Entry<V> {
  value: V | null;
  expiresAt: number;
}

export interface BundleCacheCounters {
  hits: number;
  negativeHits: number;
  loads: number;
  joined: number;
  timeouts: number;
  poolTimeouts: number;
  errors: number;
}

/**
 * The repeater's bundle cache (docs/rules.md#cache-bundle): a found bundle is reused for a few seconds, a
 * miss for longer and by every bot of the group (stored under a per-group key as well).
 * Concurrent lookups of one key share one load; a caller waits at most `timeoutMs`, after which
 * the message goes unanswered (the load goes on and stores what it finds). A timeout or a pool
 * timeout is never cached as a miss: only a lookup that found nothing is.
 * Keys are hashed, so long messages cost no memory; the size is bounded.
 */
export class BundleCache<V extends object> {
  readonly counters: BundleCacheCounters = {
    hits: 0,
    negativeHits: 0,
    loads: 0,
    joined: 0,
    timeouts: 0,
    poolTimeouts: 0,
    errors: 0,
  };
  readonly #entries = new Map<string, Entry<V>>();
  readonly #flights = new SingleFlight<string, BundleLoad<V>>();
  /** The miss entries stored per keywords (hashes; some may have expired since). */
  readonly #missesByKeywords = new Map<string, Set<string>>();
  /**
   * A counter of forgets and clears, and its value at each key's last forget: a load started
   * before the key changed must not store what it found.
   */
  #changes = 0;
  readonly #forgottenAt = new Map<string, number>();
  #clearedAt = 0;

  constructor(
    private readonly now: () => number,
    private readonly maxEntries: number = BUNDLE_CACHE.maxEntries,
  ) {}

  get size(): number {
    return this.#entries.size;
  }

  async get(key: BundleKey, timings: BundleTimings, load: () => Promise<BundleLoad<V>>): Promise<BundleResult<V>> {
    const own = hashKey(`${key.groupId}|${key.botId}|${key.salt}|${key.rawMessage}|${key.keywords}`);
    const shared = hashKey(`neg|${key.groupId}|${key.salt}|${key.rawMessage}|${key.keywords}`);
    const cached = this.#fresh(own);
    if (cached) {
      if (cached.value === null) this.counters.negativeHits++;
      else this.counters.hits++;
      return { value: cached.value, source: cached.value === null ? 'negative-hit' : 'hit' };
    }
    if (this.#fresh(shared)) {
      this.counters.negativeHits++;
      return { value: null, source: 'negative-hit' };
    }
    let flight = this.#flights.get(own);
    if (flight) this.counters.joined++;
    else flight = this.#start(own, shared, key.keywords, timings, load);
    try {
      const loaded = await withTimeout(flight, timings.timeoutMs);
      if (loaded === TIMED_OUT) {
        // Not a miss: the load goes on and stores what it finds.
        this.counters.timeouts++;
        return { value: null, source: 'timeout' };
      }
      return { value: loaded.value, source: loaded.cacheable ? 'loaded' : 'not-cached' };
    } catch (error) {
      if (error instanceof PoolTimeoutError) {
        // Not a miss either: the store keeps its own short failure window for the key.
        this.counters.poolTimeouts++;
        return { value: null, source: 'pool-timeout' };
      }
      this.counters.errors++;
      return { value: null, source: 'error', error };
    }
  }

  /** Forgets everything (e.g. after a configuration change). */
  clear(): void {
    this.#entries.clear();
    this.#flights.forget();
    this.#missesByKeywords.clear();
    this.#clearedAt = ++this.#changes;
  }

  /**
   * Forgets the cached misses of messages with these keywords, for every bot and group: the key
   * was just learned (or changed), so the next such message must look it up again. A lookup
   * already under way when this is called does not store its miss either.
   */
  forgetMisses(keywords: string): void {
    const hashes = this.#missesByKeywords.get(keywords);
    if (hashes) for (const hash of hashes) this.#entries.delete(hash);
    this.#missesByKeywords.delete(keywords);
    this.#forgottenAt.delete(keywords);
    this.#forgottenAt.set(keywords, ++this.#changes);
    if (this.#forgottenAt.size > this.maxEntries) {
      const oldest = this.#forgottenAt.keys().next();
      if (!oldest.done) this.#forgottenAt.delete(oldest.value);
    }
  }

  #start(own: string, shared: string, keywords: string, timings: BundleTimings, load: () => Promise<BundleLoad<V>>) {
    this.counters.loads++;
    const startedAt = this.#changes;
    return this.#flights.run(own, load, (loaded) => {
      // A learn or a clear after the load began may have made what it found stale: not stored.
      const changedSince = Math.max(this.#forgottenAt.get(keywords) ?? 0, this.#clearedAt) > startedAt;
      if (loaded.cacheable && !changedSince) {
        if (loaded.value !== null) this.#store(own, loaded.value, timings.positiveMs);
        else this.#storeMiss(own, shared, keywords, timings.negativeMs);
      }
    }).promise;
  }

  #fresh(key: string): Entry<V> | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt > this.now()) return entry;
    this.#entries.delete(key);
    return undefined;
  }

  #storeMiss(own: string, shared: string, keywords: string, ttlMs: number): void {
    if (ttlMs <= 0) return;
    this.#store(own, null, ttlMs);
    this.#store(shared, null, ttlMs);
    let hashes = this.#missesByKeywords.get(keywords);
    if (!hashes) {
      // Bounded like the entries: the oldest key's list goes first (its entries stay until they
      // expire; they only lose the early forgetting).
      if (this.#missesByKeywords.size >= this.maxEntries) {
        const oldest = this.#missesByKeywords.keys().next();
        if (!oldest.done) this.#missesByKeywords.delete(oldest.value);
      }
      hashes = new Set();
      this.#missesByKeywords.set(keywords, hashes);
    }
    hashes.add(own);
    hashes.add(shared);
    // Many messages share popular keywords: keep the newest hashes only (older ones expire anyway).
    for (const hash of hashes) {
      if (hashes.size <= MISSES_PER_KEYWORDS) break;
      hashes.delete(hash);
    }
  }

  #store(key: string, value: V | null, ttlMs: number): void {
    if (ttlMs <= 0) return;
    this.#entries.delete(key);
    if (this.#entries.size >= this.maxEntries) this.#prune();
    this.#entries.set(key, { value, expiresAt: this.now() + ttlMs });
  }

  /** Up to half of the entries that expired, then (still full) the oldest quarter. */
  #prune(): void {
    const now = this.now();
    const limit = Math.ceil(this.#entries.size / 2);
    let removed = 0;
    for (const [key, entry] of this.#entries) {
      if (removed >= limit) break;
      if (entry.expiresAt <= now) {
        this.#entries.delete(key);
        removed++;
      }
    }
    if (this.#entries.size < this.maxEntries) return;
    let drop = Math.max(1, Math.floor(this.#entries.size / 4));
    for (const key of this.#entries.keys()) {
      if (drop-- <= 0) break;
      this.#entries.delete(key);
    }
  }
}

const MISSES_PER_KEYWORDS = 512;

function hashKey(text: string): string {
  return createHash('md5').update(text).digest('base64url');
}
