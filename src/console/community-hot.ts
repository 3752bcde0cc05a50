/**
 * Community hot words for GET /api/community-corpus-hot: read from the hub's public
 * `GET {hub}/v1/corpus/hot?mode&period&limit` (docs/rules.md#hub-protocol), through hub-fetch.ts (409
 * without a hub, 502 when the hub fails).
 */
import { badGateway } from './errors.ts';
import { fetchHubJson, hubV1Url } from './hub-fetch.ts';

export const HOT_MODES = ['fleet', 'pool', 'recent'] as const;
export const HOT_PERIODS = ['day', 'week', 'month'] as const;

export interface HotQuery {
  mode: (typeof HOT_MODES)[number];
  period: (typeof HOT_PERIODS)[number];
  limit: number;
}

export interface HotAnswer {
  answer_keywords: string;
  message: string;
  count: number;
}

export interface HotItem {
  keywords: string;
  score: number;
  answers: HotAnswer[];
}

export interface HotPayload {
  mode: string;
  period: string;
  window_sec: number;
  as_of: string;
  items: HotItem[];
}

/** `<hub>/v1/corpus` → `<hub>/v1/corpus/hot`; a base without `/corpus` gets it appended. */
export function hubHotUrl(apiBase: string): URL {
  return hubV1Url(apiBase, 'corpus/hot');
}

export async function fetchCommunityHot(
  fetchFn: typeof fetch,
  apiBase: string,
  query: HotQuery,
  timeoutMs: number,
): Promise<HotPayload> {
  const url = hubHotUrl(apiBase);
  url.searchParams.set('mode', query.mode);
  url.searchParams.set('period', query.period);
  url.searchParams.set('limit', String(query.limit));
  const payload = normalise(await fetchHubJson(fetchFn, url, timeoutMs), query);
  if (payload === null) throw badGateway('hub_bad_answer', {}, 'community hub answered with an unexpected shape');
  return payload;
}

function normalise(body: unknown, query: HotQuery): HotPayload | null {
  if (typeof body !== 'object' || body === null || !Array.isArray((body as { items?: unknown }).items)) return null;
  const raw = body as Record<string, unknown>;
  const items: HotItem[] = [];
  for (const item of raw.items as unknown[]) {
    if (typeof item !== 'object' || item === null) continue;
    const { keywords, score, answers } = item as Record<string, unknown>;
    if (typeof keywords !== 'string') continue;
    items.push({
      keywords,
      score: typeof score === 'number' && Number.isFinite(score) ? score : 0,
      answers: Array.isArray(answers) ? answers.flatMap(hotAnswer) : [],
    });
  }
  return {
    mode: typeof raw.mode === 'string' ? raw.mode : query.mode,
    period: typeof raw.period === 'string' ? raw.period : query.period,
    window_sec: typeof raw.window_sec === 'number' ? raw.window_sec : 0,
    as_of: typeof raw.as_of === 'string' ? raw.as_of : '',
    items: items.slice(0, query.limit),
  };
}

function hotAnswer(answer: unknown): HotAnswer[] {
  if (typeof answer !== 'object' || answer === null) return [];
  const { answer_keywords, message, count } = answer as Record<string, unknown>;
  if (typeof answer_keywords !== 'string') return [];
  return [
    {
      answer_keywords,
      message: typeof message === 'string' ? message : '',
      count: typeof count === 'number' && Number.isFinite(count) ? count : 0,
    },
  ];
}
