import type { Context } from '../domain/corpus.ts';
import { LookupCache } from '../common/lookup-cache.ts';

export interface FindCacheSettings {
  ttlMs: number;
  max: number;
}

/**
 * The composite's two find caches (docs/rules.md#cache-find): merged lookups and reply lookups, each a
 * TTL cache with single flight that also caches misses, never a transient failure
 * (docs/rules.md#transient-not-miss), and skips a key's reads for a moment after a pool timeout. They belong to the object that owns them; tests build fresh ones.
 */
export class FindCaches {
  merged: LookupCache<Context>;
  reply: LookupCache<Context>;

  constructor(
    settings: FindCacheSettings,
    private readonly now?: () => number,
  ) {
    this.merged = this.#create(settings);
    this.reply = this.#create(settings);
  }

  /** New TTL or size: both caches start over empty. */
  resize(settings: FindCacheSettings): void {
    this.merged = this.#create(settings);
    this.reply = this.#create(settings);
  }

  /** Forget one key (entry, in-flight load, failure mark) in both caches, or everything. */
  invalidate(keywords?: string): void {
    this.merged.invalidate(keywords);
    this.reply.invalidate(keywords);
  }

  #create(settings: FindCacheSettings): LookupCache<Context> {
    return new LookupCache<Context>({
      ttlMs: settings.ttlMs,
      max: settings.max,
      ...(this.now ? { now: this.now } : {}),
    });
  }
}
