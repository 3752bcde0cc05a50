/**
 * Community usage (docs/rules.md#usage): cached in process for
 * CHORUS_CORPUS_USAGE_CACHE_SEC (120 s; at least 5), failures included (cached as null), with
 * concurrent callers sharing one request. Never persisted.
 */
import type { CommunityUsage } from '../corpus/status.ts';
import { SingleFlight } from '../common/single-flight.ts';

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
  /** One request at a time; an invalidation drops it, so a load started before does not fill the cache. */
  readonly #flight = new SingleFlight<'usage', CommunityUsage | null>();

  constructor(private readonly options: UsageCacheOptions) {}

  /** The cached figures, or one shared request for them. Never rejects (a failure is null). */
  get(): Promise<CommunityUsage | null> {
    const now = this.options.now();
    if (this.#entry && now < this.#entry.expiresAt) {
      this.counters.hits++;
      return Promise.resolve(this.#entry.value);
    }
    const running = this.#flight.get('usage');
    if (running) {
      this.counters.joined++;
      return running;
    }
    this.counters.loads++;
    const load = () =>
      this.options.load().catch(() => {
        this.counters.failures++;
        return null;
      });
    return this.#flight.run('usage', load, (value, current) => {
      if (!current) return;
      const ttl = Math.max(MIN_TTL_MS, this.options.ttlMs());
      this.#entry = { value, expiresAt: this.options.now() + ttl };
    }).promise;
  }

  /** The last figures without any I/O (null when none yet); starts a refresh when stale. */
  peek(): CommunityUsage | null {
    const entry = this.#entry;
    if (!entry || this.options.now() >= entry.expiresAt) void this.get();
    return entry?.value ?? null;
  }

  /** Forget the cached figures (credentials changed). */
  invalidate(): void {
    this.#entry = null;
    this.#flight.forget();
  }
}
