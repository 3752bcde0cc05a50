/**
 * Corpus read routes: the status snapshot, local hot keywords and community hot words, each behind
 * the read cache with its TTL and stale window (docs/rules.md#console-cache).
 */
import Type from 'typebox';
import { fetchCommunityHot, HOT_MODES, HOT_PERIODS, type HotQuery } from '../community-hot.ts';
import type { ConsoleApp, RouteContext } from '../context.ts';
import { invalidField } from '../errors.ts';
import { HOT_LIMIT, READ_CACHE } from '../limits.ts';
import { CommunityStats, CorpusStatus, HotWords } from '../schemas.ts';
import { fetchCommunityStats } from '../community-stats.ts';

const Limit = Type.Integer({ minimum: HOT_LIMIT.min, maximum: HOT_LIMIT.max, default: HOT_LIMIT.default });

const LocalHotQuery = Type.Object({
  scope: Type.Optional(Type.Enum(['global', 'group'], { default: 'global' })),
  group_id: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
  limit: Type.Optional(Limit),
});

const CommunityHotQuery = Type.Object({
  mode: Type.Optional(Type.Enum([...HOT_MODES], { default: 'fleet' })),
  period: Type.Optional(Type.Enum([...HOT_PERIODS], { default: 'day' })),
  limit: Type.Optional(Limit),
});

/** Cache keys, also the prefixes writes invalidate. */
export const CACHE_KEYS = {
  corpusStatus: 'corpus-status',
  localHot: 'local-corpus-hot:',
  communityHot: 'community-corpus-hot:',
  communityStats: 'community-stats:',
} as const;

/** `YYYY-MM-DDTHH:MM:SSZ`, UTC, no fraction (docs/rules.md#local-hot). */
export function isoSeconds(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

export function corpusRoutes(api: ConsoleApp, ctx: RouteContext): void {
  const { deps, cache } = ctx;

  api.get(
    '/corpus-status',
    {
      schema: {
        tags: ['corpus'],
        summary: 'Corpus status snapshot (cached 15 s, stale up to 90 s)',
        response: { 200: CorpusStatus },
      },
    },
    // Not async: a cache hit is answered without a promise.
    () => cache.get(CACHE_KEYS.corpusStatus, READ_CACHE.corpusStatus, () => deps.corpus.status()),
  );

  api.get(
    '/local-corpus-hot',
    {
      config: { members: true },
      schema: {
        tags: ['corpus'],
        summary: 'Local hot keywords (cached 60 s, stale up to 180 s)',
        querystring: LocalHotQuery,
        response: { 200: HotWords },
      },
    },
    (request) => {
      const scope = request.query.scope ?? 'global';
      const limit = request.query.limit ?? HOT_LIMIT.default;
      const groupId = request.query.group_id ?? null;
      if (scope === 'group' && groupId === null)
        throw invalidField('query.group_id', 'required', 'query.group_id: required when scope is group');
      const key = `${CACHE_KEYS.localHot}${scope}:${scope === 'group' ? groupId : 0}:${limit}`;
      return cache.get(key, READ_CACHE.localCorpusHot, async () => ({
        mode: 'pool',
        period: 'day',
        window_sec: 0,
        as_of: isoSeconds(deps.clock.nowMs()),
        items: await deps.corpus.localHot({ scope, groupId, limit }),
      }));
    },
  );

  api.get(
    '/community-corpus-hot',
    {
      schema: {
        tags: ['corpus'],
        summary: "Community hot words from the hub's public /v1/corpus/hot (cached 120 s)",
        description:
          '409 when no community hub is configured or enrolled; 502 when the hub cannot be reached, ' +
          'times out or answers with an error or an unexpected body.',
        querystring: CommunityHotQuery,
        response: { 200: HotWords },
      },
    },
    (request) => {
      const query: HotQuery = {
        mode: request.query.mode ?? 'fleet',
        period: request.query.period ?? 'day',
        limit: request.query.limit ?? HOT_LIMIT.default,
      };
      const apiBase = deps.corpus.communityApiBase();
      const timeoutMs = deps.settings.current().remote.remoteTimeoutSec * 1000;
      const key = `${CACHE_KEYS.communityHot}${apiBase}:${query.mode}:${query.period}:${query.limit}`;
      return cache.get(key, READ_CACHE.communityCorpusHot, () =>
        fetchCommunityHot(deps.fetch ?? fetch, apiBase, query, timeoutMs),
      );
    },
  );

  api.get(
    '/community-stats',
    {
      schema: {
        tags: ['corpus'],
        summary: "The community hub's public statistics from its /v1/stats (cached 30 s, stale up to 120 s)",
        description:
          '409 when no community hub is configured or enrolled; 502 when the hub cannot be reached, ' +
          'times out or answers with an error or an unexpected body.',
        response: { 200: CommunityStats },
      },
    },
    () => {
      const apiBase = deps.corpus.communityApiBase();
      const timeoutMs = deps.settings.current().remote.remoteTimeoutSec * 1000;
      return cache.get(`${CACHE_KEYS.communityStats}${apiBase}`, READ_CACHE.communityStats, () =>
        fetchCommunityStats(deps.fetch ?? fetch, apiBase, timeoutMs),
      );
    },
  );
}
