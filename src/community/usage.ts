/**
 * Community usage (rule usage): cached in process for
 * CHORUS_CORPUS_USAGE_CACHE_SEC (120 s; at least 5), failures included (cached as null), with
 * concurrent callers sharing one request. Never persisted.
 */
import type { CommunityUsage } from '../corpus/status.ts';

export interface UsageCacheOptions {
  load: () => Promise<CommunityUsage | null>;
  ttlMs: () => number;
  /** Monotonic ms. */
  now: () => number;
}

export interface UsageCacheCounters {
  loads: number;
  hits: number;
  joined: number;
  failures: number;
}

const MIN_TTL_MS = 5000;

export class UsageCache {
  readonly counters: UsageCacheCounters = { loads: 0, hits: 0, joined: 0, failures: 0 };
  #entry: { value: CommunityUsage | null; expiresAt: number } | null = null;
  #inflight: Promise<CommunityUsage | null> | null = null;
  /** Bumped by invalidate, so a load started before it does not fill the cache after it. */
  #generation = 0;

  constructor(private readonly options: UsageCacheOptions) {}

  /** The cached figures, or one shared request for them. Never rejects (a failure is null). */
  get(): Promise<CommunityUsage | null> {
    const now = this.options.now();
    if (this.#entry && now < this.#entry.expiresAt) {
      this.counters.hits++;
      return Promise.resolve(this.#entry.value);
    }
    if (this.#inflight) {
      this.counters.joined++;
      return this.#inflight;
    }
    this.counters.loads++;
    const generation = this.#generation;
    const flight = this.options
      .load()
      .catch(() => {
        this.counters.failures++;
        return null;
      })
      .then((value) => {
        if (generation === this.#generation) {
          const ttl = Math.max(MIN_TTL_MS, this.options.ttlMs());
          this.#entry = { value, expiresAt: this.options.now() + ttl };
        }
        return value;
      })
      .finally(() => {
        if (this.#inflight === flight) this.#inflight = null;
      });
    this.#inflight = flight;
    return flight;
  }

  /** The last figures without any I/O (null when none yet); starts a refresh when stale. */
  peek(): CommunityUsage | null {
    const entry = this.#entry;
    if (!entry || this.options.now() >= entry.expiresAt) void this.get();
    return entry?.value ?? null;
  }

  /** Forget the cached figures (credentials changed). */
  invalidate(): void {
    this.#generation++;
    this.#entry = null;
    this.#inflight = null;
  }
}
