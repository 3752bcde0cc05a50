import type { Context } from '../domain/corpus.ts';
import { LookupCache, type LookupCacheOptions, type LookupCacheStats } from '../common/lookup-cache.ts';

/**
 * The reply snapshot cache (docs/rules.md#cache-snapshot): the shared lookup cache over contexts,
 * always with a query timeout (a reply never waits longer than REPLY_QUERY_TIMEOUT_SEC).
 */
export class ReplySnapshotCache extends LookupCache<Context> {
  constructor(options: ReplySnapshotCacheOptions) {
    super(options);
  }
}

export interface ReplySnapshotCacheOptions extends LookupCacheOptions {
  queryTimeoutMs: number;
}

export type ReplySnapshotStats = LookupCacheStats;
